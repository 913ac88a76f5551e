import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(__dirname, '../../../scripts/canton-coin-demo.sh');

describe('scripts/canton-coin-demo.sh', () => {
  it('says where it looked and how to point it elsewhere when no server answers', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const p = execFile('bash', [SCRIPT], {
        env: { PATH: process.env.PATH, LEDGERLINE_URL: 'http://127.0.0.1:1', TOKEN: 'unused' },
        timeout: 60_000,
      });
      let stderr = '';
      p.stderr!.on('data', (d) => (stderr += d));
      p.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no Ledgerline answers at http://127.0.0.1:1');
    expect(r.stderr).toContain('LEDGERLINE_URL=');
  });
});
