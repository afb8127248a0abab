// Writes pitui/core/model/windows.py: the context window of the models Pi knows, from the
// model registry of Pi's own pi-ai package, for the context meter. Sessions do not record a
// model's window; this table is where pitui learns it.
//   node tools/model_windows.mjs PI_AI_PACKAGE_DIR > pitui/core/model/windows.py
// PI_AI_PACKAGE_DIR: tools/pi_written/.pi-cli/<version>/pi/node_modules/@earendil-works/pi-ai
// (what tools/pi_written/setup_pi_cli.sh installs)
// Kept: the providers people run Pi with directly (not the gateways that re-list them all).
import { readFileSync } from "fs";
import { resolve } from "path";
import { pathToFileURL } from "url";

const [pkg] = process.argv.slice(2);
if (!pkg) {
  console.error("usage: model_windows.mjs PI_AI_PACKAGE_DIR");
  process.exit(2);
}
const { MODELS } = await import(pathToFileURL(resolve(pkg, "dist/models.generated.js")).href);
const { version } = JSON.parse(readFileSync(resolve(pkg, "package.json"), "utf8"));
const PROVIDERS = ["anthropic", "openai", "openai-codex", "azure", "google", "google-vertex", "xai", "mistral",
  "deepseek", "github-copilot", "groq", "moonshotai", "kimi-coding", "minimax", "qwen-token-plan", "cerebras"];
const byModel = new Map(); // model id -> Map(window -> providers)
const exact = [];
for (const provider of PROVIDERS) {
  for (const [id, model] of Object.entries(MODELS[provider] ?? {})) {
    const w = model.contextWindow;
    if (!Number.isInteger(w) || w <= 0) continue;
    exact.push([provider, id, w]);
    if (!byModel.has(id)) byModel.set(id, new Map());
    const counts = byModel.get(id);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
}
// by model id: the window most of its providers give (the smaller on a tie)
const common = new Map();
for (const [id, counts] of byModel) {
  const best = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
  common.set(id, best);
}
const lines = [];
lines.push(`"""Context windows of the models Pi knows, in tokens: from the model registry of Pi's own`);
lines.push(`pi-ai ${version} (written by tools/model_windows.mjs; do not edit by hand). A session does not`);
lines.push(`record its model's window; the context meter looks the model up here."""`);
lines.push("");
lines.push("from __future__ import annotations");
lines.push("");
lines.push('__all__ = ["BY_MODEL", "BY_PROVIDER_MODEL"]');
lines.push("");
lines.push("#: model id -> the window most of the providers that serve it give");
lines.push("BY_MODEL: dict[str, int] = {");
for (const id of [...common.keys()].sort()) lines.push(`    ${JSON.stringify(id)}: ${common.get(id)},`);
lines.push("}");
lines.push("");
lines.push("#: (provider, model id) -> its window where the provider's differs from BY_MODEL's");
lines.push("BY_PROVIDER_MODEL: dict[tuple[str, str], int] = {");
for (const [provider, id, w] of exact.sort()) {
  if (w !== common.get(id)) lines.push(`    (${JSON.stringify(provider)}, ${JSON.stringify(id)}): ${w},`);
}
lines.push("}");
console.log(lines.join("\n"));
