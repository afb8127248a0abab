// Pi's own /tree rows for a session file, to compare pitui's tree with (tests/core/test_layout_roots.py
// holds rows made by this). Uses the TreeList of Pi's installed tree-selector.js with its
// imports (terminal drawing, theme, keys) replaced by plain stand-ins: colours dropped, no
// width limit. Prints one JSON string per row, without the cursor's column.
//   node tools/pi_tree.mjs PI_PACKAGE_DIR FILE [MODE [ENTRY_INDEX,...]]
// PI_PACKAGE_DIR: Pi's package as benchmarks/pi_side.py installs it
// (benchmarks/.pi-reference/node_modules/@earendil-works/pi-coding-agent); MODE: default,
// no-tools, user-only, labeled-only or all; the indices (entries in file order, header and
// unparsable lines not counted) are folded. Reads a copy of FILE: Pi may rewrite what it opens.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

const [pkg, file, mode = "default", folds = ""] = process.argv.slice(2);
const stubs = `
const theme = { fg: (c, s) => s, bg: (c, s) => s, bold: (s) => s, italic: (s) => s };
class Container { addChild() {} }
class Spacer {} class Text {} class Input {} class DynamicBorder {}
const CURSOR_MARKER = "";
const getKeybindings = () => ({ matches: () => false, getKeys: () => [] });
const sliceByColumn = (s, a, n) => s.slice(a, a + n);
const truncateToWidth = (s) => s;
const visibleWidth = (s) => [...s].length;
const wrapTextWithAnsi = (s) => [s];
const formatReadLineRange = () => "";
const shortenHomePath = (p) => p;
const formatKeyText = (k) => k;
const keyHint = (k) => k;
`;
const source = readFileSync(join(pkg, "dist/modes/interactive/components/tree-selector.js"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "pi-tree-"));
try {
  const module = join(dir, "tree-list.mjs");
  const body = source.split("\n").filter((l) => !l.startsWith("import ")).join("\n");
  writeFileSync(module, `${stubs}\n${body}\nexport { TreeList };\n`);
  const { TreeList } = await import(module);
  const { SessionManager } = await import(join(pkg, "dist/core/session-manager.js"));
  const copy = join(dir, "session.jsonl");
  copyFileSync(file, copy);
  const sm = SessionManager.open(copy, dir);
  const entries = sm.getEntries();
  const list = new TreeList(sm.getTree(), sm.getLeafId(), 1_000_000, null, mode);
  for (const k of folds.split(",").filter(Boolean)) list.foldedNodes.add(entries[Number(k)].id);
  list.applyFilter();
  list.selectedIndex = -1; // no row drawn as selected
  const lines = list.render(1_000_000).slice(0, -1); // (the last line is the position)
  for (const line of lines) console.log(JSON.stringify(line.slice(2)));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
