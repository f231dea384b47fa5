/**
 * CPU used so far, in ms, by a process, by a PostgreSQL server's backends and by this process (Linux
 * `/proc/<pid>/task/<tid>/schedstat`, nanoseconds on the CPU). Unlike wall time, CPU does not grow with the wait for a
 * core, so it says what a path costs even on a busy machine. NaN where /proc cannot tell (not Linux, a process gone).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cpu } from './reserve-drive.ts';

/** CPU ms used so far by the server processes `pids` (summed), PostgreSQL's cluster `clusterDir` and this process. */
export function cpuNow(pids: readonly (number | undefined)[], clusterDir: string): Cpu {
  return {
    server: pids.reduce<number>((ms, pid) => ms + processCpuMs(pid), 0),
    pg: postgresCpuMs(clusterDir),
    client: ownCpuMs(),
  };
}

/** CPU ms used so far by process `pid`, every thread. */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return Number.NaN; // not Linux, or the thread ended between the listing and the read
  }
}

/** CPU ms used so far by this process (the bench's own clients). */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * CPU ms used so far by the PostgreSQL server whose cluster is `clusterDir`: its postmaster (named in
 * `postmaster.pid`), the processes it runs now (backends, WAL writer, checkpointer) and, from the postmaster's
 * `cutime` and `cstime`, those that exited (a backend the server's pool closed mid-run), in 10 ms ticks.
 */
export function postgresCpuMs(clusterDir: string): number {
  try {
    const postmaster = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let ms = processCpuMs(postmaster) + exitedChildrenCpuMs(postmaster);
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const ppid = /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        if (Number(ppid) === postmaster) ms += processCpuMs(Number(pid)) || 0;
      } catch {
        /* exited meanwhile */
      }
    }
    return ms;
  } catch {
    return Number.NaN;
  }
}

/** CPU ms of the children `pid` has reaped (`/proc/<pid>/stat` fields 16 and 17, in USER_HZ ticks: 100 on Linux). */
function exitedChildrenCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so fields 16 and 17 (cutime, cstime) are at 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/**
 * A process's main thread's time so far, in ms, on a CPU and runnable but waiting for one
 * (`/proc/<pid>/task/<pid>/schedstat`, fields 1 and 2); NaN where /proc cannot tell.
 */
export function mainThreadSchedMs(pid: number | undefined): { run: number; wait: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: run! / 1e6, wait: wait! / 1e6 };
  } catch {
    return { run: Number.NaN, wait: Number.NaN };
  }
}

/** The machine's CPU time so far, in USER_HZ ticks (`/proc/stat`): in all, and idle (I/O wait included). */
export function machineTicks(): { all: number; idle: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1, 9).map(Number);
    return { all: f.reduce((a, b) => a + b, 0), idle: f[3]! + f[4]! };
  } catch {
    return { all: Number.NaN, idle: Number.NaN };
  }
}
