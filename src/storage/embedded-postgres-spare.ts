/**
 * A spare copy of the cluster template, made ahead of time beside it (`<template>/spare`), so that a new data
 * directory takes a cluster by one rename instead of copying about 1,600 files (1-3 s; docs/performance.md, "Start
 * time"). Whoever takes the spare starts a detached process (`node src/storage/embedded-postgres-spare.ts`, at the
 * lowest CPU priority) that copies the next one and renames it into place; a server stopped meanwhile does not stop it.
 * Without a spare (the first copy, two new data directories at once, another filesystem) the cluster is copied as
 * before.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import type { Owner } from './embedded-postgres-binaries.ts';

/** The spare's directory inside a template's. */
const SPARE = 'spare';
/** A copy in progress older than this was left by a process that died; it is removed. */
const STALE_COPY_MS = 60 * 60 * 1000;

/**
 * Copies a directory tree, owned by `owner` when given (we are root and it runs as "postgres"). Asynchronous, so that
 * `tessera serve` goes on loading its modules meanwhile.
 */
export async function copyTree(from: string, to: string, owner: Owner | undefined): Promise<void> {
  await cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  chmodSync(to, 0o700); // PostgreSQL refuses a data directory others may enter
  if (!owner) return;
  const chownTree = (dir: string) => {
    chownSync(dir, owner.uid, owner.gid);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) chownTree(path);
      else chownSync(path, owner.uid, owner.gid);
    }
  };
  chownTree(to);
}

/** Moves the template's spare cluster to `pgDir` (which must not exist); false when there is none to take here. */
export function takeSpareCluster(templateDir: string, pgDir: string): boolean {
  try {
    renameSync(join(templateDir, SPARE), pgDir);
    return true;
  } catch {
    return false; // none (or another process took it), or another filesystem: the caller copies
  }
}

/** Makes the template's spare cluster unless there is one: a copy of its `pg`, renamed into place when complete. */
export async function makeSpareCluster(templateDir: string, owner: Owner | undefined): Promise<void> {
  const spare = join(templateDir, SPARE);
  for (const name of readdirSync(templateDir))
    if (name.startsWith(`${SPARE}.tmp-`) && Date.now() - statSync(join(templateDir, name)).mtimeMs > STALE_COPY_MS)
      rmSync(join(templateDir, name), { recursive: true, force: true });
  if (existsSync(spare)) return;
  const tmp = mkdtempSync(join(templateDir, `${SPARE}.tmp-`));
  try {
    await copyTree(join(templateDir, 'pg'), join(tmp, 'pg'), owner);
    if (!existsSync(spare)) renameSync(join(tmp, 'pg'), spare);
  } catch {
    // Another process put its spare in place first, or the template was removed meanwhile: nothing to do.
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Starts making the template's next spare in a detached process at the lowest CPU priority; resolves when it is done
 * (a caller need not wait: the process goes on if this one ends).
 */
export function makeSpareClusterInBackground(templateDir: string, owner: Owner | undefined): Promise<void> {
  const args = [import.meta.filename, templateDir, ...(owner ? [String(owner.uid), String(owner.gid)] : [])];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore' });
  const done = new Promise<void>((ok) => {
    child.once('exit', () => ok());
    child.once('error', () => ok());
  });
  try {
    if (child.pid) setPriority(child.pid, 19);
  } catch {
    // not permitted here: it runs at the normal priority
  }
  child.unref();
  return done;
}

if (import.meta.main) {
  const [templateDir, uid, gid] = process.argv.slice(2);
  await makeSpareCluster(templateDir!, uid === undefined ? undefined : { uid: Number(uid), gid: Number(gid) });
}
