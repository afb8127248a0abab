// Two sessions of a Pi-based app (an assistant server built on Pi's SDK) that store their own
// records in Pi's extension slots, written by Pi's own SessionManager:
//   - `custom` entries, customType "assistant.event": replay-only UI events (an agent_callback
//     resolving an earlier agents_message call, an interrupt, an interaction request);
//   - `custom_message` entries, customType "assistant.input": input written by another agent
//     (kind "agent", shown) and a hidden callback input (kind "callback", display false).
// The planner's session asks the researcher (whose session starts with the planner's input).
//
//   node tools/pi_written/extension_sessions.mjs PI_PACKAGE_DIR OUT_DIR
// PI_PACKAGE_DIR: benchmarks/.pi-reference/pkg (made by ../shared/pi-reference/setup.sh).
// The clock is fixed (each entry a few seconds after the last) so a rerun differs only in ids.
import { resolve } from "path";
import { pathToFileURL } from "url";

const [pkg, out] = process.argv.slice(2);
if (!pkg || !out) {
  console.error("usage: extension_sessions.mjs PI_PACKAGE_DIR OUT_DIR");
  process.exit(2);
}

let now = Date.parse("2026-11-12T09:30:00.000Z");
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...a) {
    if (a.length === 0) {
      now += 2317;
      super(now);
    } else super(...a);
  }
  static now() {
    now += 2317;
    return now;
  }
};

const { SessionManager } = await import(pathToFileURL(resolve(pkg, "dist/core/session-manager.js")).href);
const CWD = "/home/demo/assistant";
const model = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
const usage = (i, o, cost) => ({ input: i, output: o, cacheRead: 0, cacheWrite: 0, totalTokens: i + o,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } });
const text = (t) => [{ type: "text", text: t }];
const assistant = (content, stopReason, u) => ({ role: "assistant", content, ...model, usage: u, stopReason,
  timestamp: Date.now() });

// --- the planner: asks the researcher without waiting, is interrupted, gets the answer back
const planner = SessionManager.create(CWD, out);
const researcher = SessionManager.create(CWD, out);
const plannerId = planner.getSessionId();
const researcherId = researcher.getSessionId();

planner.appendMessage({ role: "user", content: text("Plan the migration of the billing service to Postgres 17. Ask the researcher what changed in logical replication."), timestamp: Date.now() });
planner.appendMessage(assistant([
  { type: "thinking", thinking: "I need the **replication** changes first; the researcher can look them up while I draft the plan." },
  { type: "text", text: "I'll ask the researcher about logical replication and draft the plan meanwhile." },
  { type: "toolCall", id: "toolu_ask_01", name: "agents_message",
    arguments: { agentId: "researcher", message: "What changed in logical replication between Postgres 15 and 17? Failover slots in particular.", wait: false } },
], "toolUse", usage(1840, 212, 0.0087)));
planner.appendMessage({ role: "toolResult", toolCallId: "toolu_ask_01", toolName: "agents_message",
  content: text("Message sent to researcher (msg_7f3a). The answer arrives as a callback."),
  details: { messageId: "msg_7f3a", targetAgentId: "researcher", targetSessionId: researcherId }, isError: false,
  timestamp: Date.now() });
planner.appendMessage(assistant(text("Draft plan:\n\n1. Upgrade replicas first.\n2. Switch the publisher.\n3. Cut over billing writes."), "stop", usage(2100, 96, 0.0071)));
planner.appendCustomEntry("assistant.event", { chatEventType: "interrupt", payload: { reason: "user pressed stop", partial: true }, turnId: "turn_2", responseId: "resp_2" });
planner.appendCustomEntry("assistant.event", { chatEventType: "interaction_request", payload: { kind: "confirm", prompt: "Share the draft with the team channel?" }, turnId: "turn_2" });

// --- the researcher: its first input was written by the planner
researcher.appendCustomMessageEntry("assistant.input", "What changed in logical replication between Postgres 15 and 17? Failover slots in particular.", true,
  { kind: "agent", fromAgentId: "planner", fromSessionId: plannerId });
researcher.appendMessage(assistant(text("Postgres 17 adds **failover slots**: logical replication slots are synchronised to physical standbys (`sync_replication_slots`), so subscribers survive a failover. `pg_createsubscriber` turns a physical standby into a logical subscriber."), "stop", usage(3200, 410, 0.0158)));

// --- back in the planner: the callback resolves the agents_message call, then a hidden callback turn
const answer = "Postgres 17 adds failover slots (`sync_replication_slots`) and `pg_createsubscriber`.";
planner.appendCustomEntry("assistant.event", { chatEventType: "agent_callback",
  payload: { toolCallId: "toolu_ask_01", messageId: "msg_7f3a", fromAgentId: "researcher", fromSessionId: researcherId, status: "done", message: answer },
  turnId: "turn_3" });
planner.appendCustomMessageEntry("assistant.input", `Callback from researcher (msg_7f3a):\n\n${answer}`, false,
  { kind: "callback", fromAgentId: "researcher", fromSessionId: researcherId });
planner.appendMessage(assistant(text("With failover slots the replicas can be upgraded first without losing the subscription. Updated step 1: enable `sync_replication_slots` on the standbys before the cut-over."), "stop", usage(2600, 140, 0.0096)));

console.log(JSON.stringify({ planner: planner.getSessionFile(), researcher: researcher.getSessionFile() }));
