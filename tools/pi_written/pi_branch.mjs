// What Pi's own SessionManager.createBranchedSession writes for chosen entries of session
// files: the file Pi's /fork would make of the branch from the root to that entry. For
// `pitui export FILE --format session --leaf ID` to be compared with (tests/core/test_fork_export.py).
//   node tools/pi_written/pi_branch.mjs PI_PACKAGE_DIR OUT_DIR FILE...
// For each FILE (opened as a copy: Pi may rewrite what it opens) and each chosen entry (its
// leaf, the middle entry, the first labelled one, the entry after its first compaction and
// after its first branch summary), OUT_DIR gets <file>@<index>.jsonl (entries named by their
// index in file order, as in the corpus's expected readings), and manifest.json lists them,
// with null where Pi wrote no file (a branch with no conversation yet).
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { basename, join, resolve } from "path";
import { pathToFileURL } from "url";

const [pkg, outDir, ...files] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(resolve(pkg, "dist/core/session-manager.js")).href);
mkdirSync(outDir, { recursive: true });
const manifest = {};
for (const file of files) {
  const entries = (() => {
    const tmp = `${file}.open-copy`;
    copyFileSync(file, tmp);
    try {
      return SessionManager.open(tmp, tmpdir()).getEntries();
    } finally {
      unlinkSync(tmp);
    }
  })();
  if (entries.length === 0) continue;
  const pick = new Set([entries.length - 1, Math.floor(entries.length / 2)]);
  const labelled = entries.findIndex((e) => e.type === "label" && e.label);
  if (labelled >= 0) pick.add(entries.findIndex((e) => e.id === entries[labelled].targetId));
  for (const type of ["compaction", "branch_summary"]) {
    const k = entries.findIndex((e) => e.type === type);
    if (k >= 0) pick.add(Math.min(k + 1, entries.length - 1));
  }
  pick.delete(-1);
  const made = {};
  for (const index of [...pick].sort((a, b) => a - b)) {
    const dir = mkdtempSync(join(tmpdir(), "pi-branch-"));
    const tmp = join(dir, basename(file));
    copyFileSync(file, tmp);
    try {
      const sm = SessionManager.open(tmp, dir);
      const written = sm.createBranchedSession(sm.getEntries()[index].id);
      const name = `${basename(file)}@${index}.jsonl`;
      const exists = readdirSync(dir).includes(basename(written));
      if (exists) renameSync(written, join(outDir, name));
      made[index] = exists ? name : null;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  manifest[basename(file)] = made;
}
writeFileSync(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
