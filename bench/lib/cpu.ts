import { readFileSync } from 'node:fs';

/** CPU time used so far (ms): the whole machine (all cores, busy time), a child process, and this process. Linux only. */
export interface CpuSnapshot {
  machineMs: number;
  serverMs: number;
  selfMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function machineBusyMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const [user, nice, system, , , irq, softirq, steal = 0] = cpu;
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

function processMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime
}

export function cpuSnapshot(serverPid: number): CpuSnapshot | undefined {
  try {
    const u = process.cpuUsage();
    return { machineMs: machineBusyMs(), serverMs: processMs(serverPid), selfMs: (u.user + u.system) / 1000 };
  } catch {
    return undefined; // not Linux
  }
}

/** CPU per operation (µs) between two snapshots: the server, this load generator, and the rest (PostgreSQL, mostly). */
export function cpuPerOp(a: CpuSnapshot | undefined, b: CpuSnapshot | undefined, ops: number): { server: number; client: number; rest: number } | undefined {
  if (!a || !b || ops <= 0) return undefined;
  const server = b.serverMs - a.serverMs;
  const client = b.selfMs - a.selfMs;
  const rest = b.machineMs - a.machineMs - server - client;
  return { server: (server * 1000) / ops, client: (client * 1000) / ops, rest: (Math.max(0, rest) * 1000) / ops };
}
