import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

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

/** utime + stime (ms) and parent of every live process. */
function processTable(): Map<number, { ppid: number; ms: number }> {
  const table = new Map<number, { ppid: number; ms: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      /* exited meanwhile */
    }
  }
  return table;
}

/** CPU (ms) of the processes `pids` and all their descendants (a server with LEDGER_WORKERS forks its workers). */
export function processTreeMs(pids: readonly number[]): number {
  const table = processTable();
  const inTree = new Set(pids);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, p] of table) {
      if (!inTree.has(pid) && inTree.has(p.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  let ms = 0;
  for (const pid of inTree) ms += table.get(pid)?.ms ?? 0;
  return ms;
}

/** `serverPids`: the process(es) of the service under test; their CPU and their children's is summed. */
export function cpuSnapshot(serverPids: number | readonly number[]): CpuSnapshot | undefined {
  try {
    const u = process.cpuUsage();
    const { busyMs, stealMs } = machineTimes();
    const serverMs = processTreeMs([serverPids].flat());
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

/**
 * The whole machine between two snapshots: busy CPU (every process, all cores) per operation (µs), and the share of the
 * cores' time that was busy over `elapsedMs`. Compares workloads by what one operation costs the machine.
 */
export function machinePerOp(
  a: CpuSnapshot | undefined,
  b: CpuSnapshot | undefined,
  ops: number,
  elapsedMs: number,
): { us: number; busy: number } | undefined {
  if (!a || !b || ops <= 0 || elapsedMs <= 0) return undefined;
  const ms = Math.max(0, b.machineMs - a.machineMs);
  return { us: (ms * 1000) / ops, busy: ms / (availableParallelism() * elapsedMs) };
}
