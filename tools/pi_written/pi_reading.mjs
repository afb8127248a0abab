// Pi's own reading of session files, in the conformance corpus's format (see
// tests/fixtures/pi-corpus/README.md): entry count, types, parents, leaf, roots, children,
// labels, name and buildSessionContext at the leaf, each entry named by its index.
//   node tools/pi_written/pi_reading.mjs PI_PACKAGE_DIR OUT_DIR FILE...
// With PROBES_FROM=DIR, `probes` holds buildSessionContext at the same entries as DIR/<file>.json
// names (the corpus's expected folder): a Pi release's reading of the whole corpus, probes
// included, to compare with the one recorded there.
// Pi opens a copy: it may rewrite what it opens.
import { copyFileSync, existsSync, readFileSync, unlinkSync, writeFileSync } from "fs";
import { basename, join, resolve } from "path";
import { pathToFileURL } from "url";

const [pkg, outDir, ...files] = process.argv.slice(2);
const { SessionManager, buildSessionContext } =
  await import(pathToFileURL(resolve(pkg, "dist/core/session-manager.js")).href);
const probesFrom = process.env.PROBES_FROM;
for (const file of files) {
  const tmp = `${file}.open-copy`;
  copyFileSync(file, tmp);
  try {
    const sm = SessionManager.open(tmp, "/tmp");
    const entries = sm.getEntries();
    const index = new Map(entries.map((e, i) => [e.id, i]));
    const children = {};
    const roots = [];
    const walk = [...sm.getTree()].map((n) => [n, null]);
    for (const [n] of walk) roots.push(index.get(n.entry.id));
    while (walk.length) {
      const [n] = walk.shift();
      if (n.children.length) children[index.get(n.entry.id)] = n.children.map((c) => index.get(c.entry.id));
      for (const c of n.children) walk.push([c, n]);
    }
    const labels = {};
    entries.forEach((e, i) => { const l = sm.getLabel(e.id); if (l !== undefined) labels[i] = l; });
    const out = {
      file: basename(file),
      sessionId: sm.getSessionId(),
      entryCount: entries.length,
      types: entries.map((e) => e.type),
      parents: entries.map((e) => (e.parentId == null ? null : index.get(e.parentId) ?? null)),
      leaf: index.get(sm.getLeafId()) ?? null,
      roots,
      children,
      labels,
      name: sm.getSessionName() ?? null,
      context: sm.buildSessionContext(),
      probes: [],
    };
    const recorded = probesFrom && join(probesFrom, `${basename(file)}.json`);
    if (recorded && existsSync(recorded)) {
      for (const { leaf } of JSON.parse(readFileSync(recorded, "utf8")).probes ?? []) {
        out.probes.push({ leaf, context: buildSessionContext(entries, entries[leaf].id) });
      }
    }
    writeFileSync(join(outDir, `${basename(file)}.json`), JSON.stringify(out));
  } finally {
    unlinkSync(tmp);
  }
}
