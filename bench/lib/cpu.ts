import { readFileSync } from 'node:fs';

/**
 * CPU time used so far (ms): the whole machine (all cores, busy time), a child process, this process, and the time the
 * hypervisor gave this machine's cores to someone else (steal). Linux only.
 */
export interface CpuSnapshot {
  machineMs: number;
  serverMs: number;
  selfMs: number;
  stealMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function machineTimes(): { busyMs: number; stealMs: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const [user, nice, system, , , irq, softirq, steal = 0] = cpu;
  return { busyMs: (user + nice + system + irq + softirq) * TICK_MS, stealMs: steal * TICK_MS };
}

function processMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime
}

/** `serverPids`: the process(es) of the service under test; their CPU is summed. */
export function cpuSnapshot(serverPids: number | readonly number[]): CpuSnapshot | undefined {
  try {
    const u = process.cpuUsage();
    const { busyMs, stealMs } = machineTimes();
    const serverMs = [serverPids].flat().reduce((sum, pid) => sum + processMs(pid), 0);
    return { machineMs: busyMs, serverMs, selfMs: (u.user + u.system) / 1000, stealMs };
  } catch {
    return undefined; // not Linux
  }
}

/**
 * Per operation (µs) between two snapshots: the CPU of the server, of this load generator and of the rest of the machine
 * (PostgreSQL, mostly), and the steal — time the machine's cores were runnable but the hypervisor ran another guest. On a
 * shared virtual machine steal is what makes consecutive runs of the same code differ; it is no one's CPU use here.
 */
export function cpuPerOp(
  a: CpuSnapshot | undefined,
  b: CpuSnapshot | undefined,
  ops: number,
): { server: number; client: number; rest: number; steal: number } | undefined {
  if (!a || !b || ops <= 0) return undefined;
  const server = b.serverMs - a.serverMs;
  const client = b.selfMs - a.selfMs;
  const rest = b.machineMs - a.machineMs - server - client;
  const per = (ms: number) => (Math.max(0, ms) * 1000) / ops;
  return { server: per(server), client: per(client), rest: per(rest), steal: per(b.stealMs - a.stealMs) };
}
