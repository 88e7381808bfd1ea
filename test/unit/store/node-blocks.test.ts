import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, syncStore } from '../../../src/store/index.js';
import { planNodeBlocks, type NodeMember } from '../../../src/store/ingest/node-blocks.js';
import { syntheticManifest } from '../../helpers/synthetic-artifacts.js';

/**
 * node_block (schema/001-tables.sql): an invocation's nodes as content-defined blocks, so that a
 * run that edits one node writes the rows of that node's block, not a row per node.
 */

function members(count: number): NodeMember[] {
  return Array.from({ length: count }, (_, i) => ({
    unique_id: `model.p.n${i}`,
    node_version_id: `v${i}`,
    fingerprint: `f${i}`,
    relation_name: `"db"."s"."n${i}"`,
    compiled_code_id: null,
    macros: i % 3 === 0 ? ['macro.p.b', 'macro.p.a'] : [],
  }));
}

const ids = (plan: ReturnType<typeof planNodeBlocks>) => new Set(plan.blocks.map((b) => b.blockId));
const minus = (a: Set<string>, b: Set<string>) => [...a].filter((id) => !b.has(id));

describe('planNodeBlocks', () => {
  const before = members(1000);
  const plan = planNodeBlocks(before);

  it('holds every node once, in blocks of a few nodes', () => {
    const rows = plan.blocks.flatMap((b) => b.rows);
    expect(rows.map((r) => r.unique_id).sort()).toEqual(before.map((m) => m.unique_id).sort());
    expect(plan.blocks.length).toBeGreaterThan(1000 / 32);
    expect(plan.blocks.length).toBeLessThan(1000 / 2);
  });

  it('cuts the same blocks whatever order the manifest lists its nodes in', () => {
    expect(planNodeBlocks([...before].reverse())).toEqual(plan);
  });

  it('gives an edited node a new block, and every other block its old id', () => {
    const edited = before.map((m) => (m.unique_id === 'model.p.n500' ? { ...m, fingerprint: 'edited' } : m));
    const after = planNodeBlocks(edited);
    const added = minus(ids(after), ids(plan));
    expect(added).toHaveLength(1);
    expect(minus(ids(plan), ids(after))).toHaveLength(1);
    expect(after.blocks.find((b) => b.blockId === added[0])!.rows.map((r) => r.unique_id)).toContain('model.p.n500');
  });

  it('changes only the block an added node falls in (split in two when the node ends a block)', () => {
    const after = planNodeBlocks([...before, { ...before[0]!, unique_id: 'model.p.n500x', node_version_id: 'new' }]);
    expect(minus(ids(plan), ids(after))).toHaveLength(1);
    expect(minus(ids(after), ids(plan)).length).toBeGreaterThanOrEqual(1);
    expect(minus(ids(after), ids(plan)).length).toBeLessThanOrEqual(2);
  });

  it('keeps the entries of one unique_id (enabled and disabled) in one block', () => {
    const twice = [...before, { ...before[7]!, node_version_id: 'disabled-v7', macros: [] }];
    const holding = planNodeBlocks(twice).blocks.filter((b) => b.rows.some((r) => r.unique_id === 'model.p.n7'));
    expect(holding).toHaveLength(1);
    expect(holding[0]!.rows.filter((r) => r.unique_id === 'model.p.n7')).toHaveLength(2);
  });

  it('names one macro set for the same macros in any order, listed once each', () => {
    const withSets = planNodeBlocks([
      { ...before[0]!, macros: ['macro.p.a', 'macro.p.b', 'macro.p.a'] },
      { ...before[1]!, macros: ['macro.p.b', 'macro.p.a'] },
    ]);
    expect(withSets.macroSets).toEqual([{ macroSetId: expect.any(String), macros: ['macro.p.a', 'macro.p.b'] }]);
    expect(new Set(withSets.blocks.flatMap((b) => b.rows.map((r) => r.macro_set_id)))).toEqual(new Set([withSets.macroSets[0]!.macroSetId]));
  });
});

describe('a run that edits one node', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-blocks-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const NODES = 300;

  /** A manifest of NODES models, each depending on the one before and calling two macros; `edited` gets other code. */
  function writeTarget(
    invocationId: string,
    edited: string | null,
  ): { dir: string; manifest: { nodes: Record<string, { depends_on: { nodes: string[]; macros: string[] } }> } } {
    const manifest = JSON.parse(syntheticManifest({ invocationId, statuses: Array.from({ length: NODES }, () => 'success') })) as {
      nodes: Record<string, { raw_code: string; depends_on: { nodes: string[]; macros: string[] } }>;
    };
    Object.values(manifest.nodes).forEach((node, i) => {
      node.depends_on = { nodes: i > 0 ? [`model.synthetic.m${i - 1}`] : [], macros: ['macro.synthetic.a', i % 2 ? 'macro.synthetic.b' : 'macro.synthetic.c'] };
    });
    if (edited) manifest.nodes[edited]!.raw_code += ' -- edited';
    const dir = path.join(root, invocationId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    return { dir, manifest };
  }

  it('writes only the rows of the block holding it; the views show its nodes and edges as the manifest has them', async () => {
    const backend = await openArchive(path.join(root, 'archive'), { create: true });
    const storeFile = path.join(root, 'store.duckdb');
    const EDITED = 'model.synthetic.m150';
    const count = async (sql: string, params: string[] = []) => {
      const db = await openDatabase(storeFile, 'read');
      try {
        return (await db.connection.runAndReadAll(sql, params)).getRowsJson();
      } finally {
        db.close();
      }
    };
    const captureRun = async (id: string, edited: string | null, minute: number) => {
      const target = writeTarget(id, edited);
      await captureTarget(backend, {
        targetDir: target.dir,
        artifacts: ['manifest'],
        phase: 'manual',
        toolVersion: 'test',
        branch: 'main',
        now: new Date(Date.UTC(2026, 0, 5, 12, minute)),
      });
      expect(await syncStore(backend, storeFile, 'wait')).toMatchObject({ status: 'synced', problems: [] });
      return target.manifest;
    };
    const [first, second] = ['1b1b1b1b-1111-4222-8333-444444444444', '2c2c2c2c-1111-4222-8333-444444444444'];
    await captureRun(first, null, 0);
    const [[rowsBefore]] = (await count('SELECT count(*)::INTEGER FROM node_block')) as [[number]];
    const manifest = await captureRun(second, EDITED, 1);
    const [[rowsAfter]] = (await count('SELECT count(*)::INTEGER FROM node_block')) as [[number]];

    const newBlocks = await count(
      `SELECT block_id, list(n.unique_id ORDER BY n.unique_id) FROM invocation_node_block AS b JOIN node_block AS n USING (block_id)
       WHERE b.invocation_id = $2 AND block_id NOT IN (SELECT block_id FROM invocation_node_block WHERE invocation_id = $1) GROUP BY block_id`,
      [first, second],
    );
    expect(newBlocks).toHaveLength(1);
    const blockNodes = newBlocks[0]![1] as string[];
    expect(blockNodes).toContain(EDITED);
    expect(rowsBefore).toBe(NODES);
    expect(rowsAfter - rowsBefore).toBe(blockNodes.length);
    expect(blockNodes.length).toBeLessThan(NODES / 10);

    const nodes = await count('SELECT unique_id FROM node_invocation WHERE invocation_id = $1 ORDER BY unique_id', [second]);
    expect(nodes.map(([id]) => id)).toEqual(Object.keys(manifest.nodes).sort());
    const edges = await count('SELECT unique_id, depends_on_id, kind FROM node_depends_on WHERE invocation_id = $1 ORDER BY ALL', [second]);
    const expected = Object.entries(manifest.nodes).flatMap(([id, node]) => [
      ...node.depends_on.nodes.map((to) => [id, to, 'node']),
      ...node.depends_on.macros.map((to) => [id, to, 'macro']),
    ]);
    expect(edges).toEqual(expected.sort((a, b) => (a.join('\0') < b.join('\0') ? -1 : 1)));
  });
});
