import { describe, expect, it } from 'vitest';
import { Access } from '../../functions/store/access-codes.js';
import { AccountEntity } from '../../functions/store/accounts.js';
import { AlertEntity } from '../../functions/store/alerts.js';
import { Disconnect } from '../../functions/store/disconnects.js';
import { entity } from '../../functions/store/entity.js';
import { ForfaitEntity } from '../../functions/store/forfaits.js';
import { Rule } from '../../functions/store/gateway-rules.js';
import type { IndexDef } from '../../functions/store/keys.js';
import { Nas } from '../../functions/store/nas.js';
import { PaymentEntity } from '../../functions/store/payments.js';
import { Session } from '../../functions/store/sessions.js';
import { Vlan } from '../../functions/store/vlans.js';

/** An entity of the helper's own: a task in a list by status, and a sparse index of open ones. */
interface Task {
  id: string;
  owner: string;
  status: 'open' | 'done';
  due: string;
  note?: string;
  hits?: number;
}

const Task = entity<Task>('task')({
  key: (t: Pick<Task, 'id'>) => ({ pk: `TASK#${t.id}`, sk: 'TASK' }),
  indexes: {
    // A template: its composite (owner, status, id) is derived from the names it holds.
    byOwner: { gsi: 'gsi1', pk: 'OWNER#{owner}', sk: '{status}#{id}' },
    // A key function, with its composite listed.
    openByDue: {
      gsi: 'gsi2',
      composite: ['status', 'due', 'id'],
      pk: (_all: unknown) => 'OPEN',
      sk: (t: Pick<Task, 'due' | 'id'>) => `${t.due}#${t.id}`,
      when: (t: Pick<Task, 'status'>) => t.status === 'open',
    },
  },
});

const task: Task = { id: 't1', owner: 'ana', status: 'open', due: '2026-01-01' };

/** The UpdateItem a transaction would send, with its placeholders replaced by names and values. */
function sent(item: ReturnType<typeof Task.tx.update>) {
  const u = item.Update;
  if (!u) throw new Error('not an update');
  let text = u.UpdateExpression ?? '';
  for (const [k, v] of Object.entries(u.ExpressionAttributeNames ?? {})) text = text.replaceAll(k, v);
  for (const [k, v] of Object.entries(u.ExpressionAttributeValues ?? {})) {
    text = text.replaceAll(new RegExp(`${k}(?!\\w)`, 'g'), JSON.stringify(v));
  }
  return text;
}

describe('entity helper: key templates', () => {
  const Ticket = entity<Task>('ticket')({
    key: (t: Pick<Task, 'id'>) => ({ pk: `TICKET#${t.id}`, sk: 'TICKET' }),
    indexes: {
      openByOwner: {
        gsi: 'gsi1',
        pk: 'OWNER#{owner}#OPEN',
        sk: '{due}#{id}',
        when: (t: Task) => t.status === 'open',
        whenReads: ['status'],
      },
      careless: { gsi: 'gsi2', pk: 'ALL', sk: '{id}', when: (t: Task) => t.note !== undefined },
    },
  });

  it('derives the composite from the names a template holds, and from whenReads', () => {
    expect([...Ticket.indexes.openByOwner.composite].sort()).toEqual(['due', 'id', 'owner', 'status']);
    expect(Ticket.indexes.openByOwner.pk({ owner: 'ana' })).toBe('OWNER#ana#OPEN');
    expect(Task.indexes.byOwner.composite).toEqual(['owner', 'status', 'id']);
  });

  it('writes the keys a template says, and moves them when an attribute it names changes', () => {
    const item = Task.item(task);
    expect([item.gsi1pk, item.gsi1sk]).toEqual(['OWNER#ana', 'open#t1']);
    const text = sent(Task.tx.update({ id: 't1' }, { set: { owner: 'bea' }, read: task }));
    expect(text).toContain('gsi1pk = "OWNER#bea"');
    expect(text).toContain('gsi1sk = "open#t1"');
  });

  it('keeps an item in a sparse index only while the attributes `sparse` names hold their values', () => {
    const Job = entity<Task>('job')({
      key: (t: Pick<Task, 'id'>) => ({ pk: `JOB#${t.id}`, sk: 'JOB' }),
      indexes: { open: { gsi: 'gsi1', pk: 'OPEN', sk: '{due}#{id}', sparse: { status: 'open' } } },
    });
    expect([...Job.indexes.open.composite].sort()).toEqual(['due', 'id', 'status']);
    expect(Job.item(task).gsi1pk).toBe('OPEN');
    expect(Job.item({ ...task, status: 'done' }).gsi1pk).toBeUndefined();
    // Closing it takes it out of the index: `status` feeds it, though no key names it.
    expect(sent(Job.tx.update({ id: 't1' }, { set: { status: 'done' }, read: task }))).toMatch(
      /REMOVE gsi1pk, gsi1sk$/,
    );
  });

  it('zero-pads a number named with a width, so that keys sort as the numbers do', () => {
    const Ranked = entity<{ id: string; rank: number }>('ranked')({
      key: (r: { id: string }) => ({ pk: `R#${r.id}`, sk: 'R' }),
      indexes: { byRank: { gsi: 'gsi1', pk: 'RANKS', sk: '{rank:5}#{id}' } },
    });
    expect(Ranked.indexes.byRank.composite).toEqual(['rank', 'id']);
    const keys = [120, 7, 45].map((rank) => Ranked.item({ id: `r${rank}`, rank }).gsi1sk as string);
    expect(keys).toEqual(['00120#r120', '00007#r7', '00045#r45']);
    expect([...keys].sort()).toEqual(['00007#r7', '00045#r45', '00120#r120']);
    // Typed by the name without its width.
    expect(Ranked.indexes.byRank.sk({ id: 'r3', rank: 3 })).toBe('00003#r3');
  });

  it('refuses to build a key without a value for a name it holds (never `undefined` in a key)', () => {
    expect(() => Task.indexes.byOwner.sk({ status: 'open' } as Task)).toThrow(/needs id/);
  });

  it('refuses a `when` that reads an attribute outside its keys and whenReads', () => {
    expect(() => Ticket.item({ ...task, note: 'x' })).toThrow(/when reads note/);
  });

  it('types a query by the names of its partition template', () => {
    // @ts-expect-error: byOwner's partition is built from `owner`, not `status`.
    const wrong: Parameters<typeof Task.indexes.byOwner.pk>[0] = { status: 'open' };
    const right: Parameters<typeof Task.indexes.byOwner.pk>[0] = { owner: 'ana' };
    expect([wrong, right]).toHaveLength(2);
  });
});

describe('entity helper: index keys on update', () => {
  it('leaves the keys alone when no attribute an index is built from changes', () => {
    expect(sent(Task.tx.update({ id: 't1' }, { set: { note: 'x' } }))).toBe('SET note = "x"');
  });

  it('rewrites the keys of every index an updated attribute feeds, from set, key and read', () => {
    const text = sent(Task.tx.update({ id: 't1' }, { set: { status: 'done' }, read: task }));
    expect(text).toContain('status = "done"');
    expect(text).toContain('gsi1pk = "OWNER#ana"');
    expect(text).toContain('gsi1sk = "done#t1"');
    // The sparse index's `when` no longer holds: its keys go.
    expect(text).toMatch(/REMOVE gsi2pk, gsi2sk$/);
    expect(text).not.toContain('gsi2pk =');
  });

  it('moves an item within a sparse index while it still belongs there', () => {
    const text = sent(Task.tx.update({ id: 't1' }, { set: { due: '2026-02-01' }, read: task }));
    expect(text).toBe('SET due = "2026-02-01", gsi2pk = "OPEN", gsi2sk = "2026-02-01#t1"');
  });

  it('needs no read when `when` decides from what is set', () => {
    // Only `status` is known besides the key: enough to leave the sparse index, not for byOwner.
    expect(() => Task.tx.update({ id: 't1' }, { set: { status: 'done' } })).toThrow(/owner/);
    const Open = entity<Task>('open_task')({
      key: (t: Pick<Task, 'id'>) => ({ pk: `TASK#${t.id}`, sk: 'TASK' }),
      indexes: { openByDue: { ...(Task.indexes.openByDue as IndexDef<Task>) } },
    });
    expect(sent(Open.tx.update({ id: 't1' }, { set: { status: 'done' } }))).toBe(
      'SET status = "done" REMOVE gsi2pk, gsi2sk',
    );
  });

  it('refuses to guess an attribute a key needs: it must be set or read', () => {
    expect(() => Task.tx.update({ id: 't1' }, { set: { due: '2026-02-01' } })).toThrow(/status/);
  });

  it('takes an attribute absent from `read` as absent, and an undefined one in `set` as removed', () => {
    const text = sent(Task.tx.update({ id: 't1' }, { set: { note: undefined, hits: 2 }, read: task }));
    expect(text).toBe('SET hits = 2 REMOVE note');
  });

  it('removing an attribute an index is built from recomputes that index', () => {
    const Tagged = entity<{ id: string; tag?: string }>('tagged')({
      key: (t: { id: string }) => ({ pk: `T#${t.id}`, sk: 'T' }),
      indexes: {
        byTag: {
          gsi: 'gsi1',
          composite: ['tag', 'id'],
          pk: (t: { tag?: string }) => `TAG#${t.tag}`,
          sk: (t: { id: string }) => t.id,
          when: (t: { tag?: string }) => t.tag !== undefined,
        },
      },
    });
    expect(sent(Tagged.tx.update({ id: 'a' }, { remove: ['tag'] }))).toBe('REMOVE tag, gsi1pk, gsi1sk');
  });

  it('merges its clauses with a raw expression, commas inside functions included', () => {
    const text = sent(
      Task.tx.update(
        { id: 't1' },
        {
          set: { status: 'done' },
          read: task,
          expression: 'ADD hits :one SET note = if_not_exists(note, :n), #d = :d REMOVE extra',
          names: { '#d': 'done_at' },
          values: { ':one': 1, ':n': 'a, b', ':d': 'now' },
        },
      ),
    );
    expect(text).toBe(
      'SET note = if_not_exists(note, "a, b"), done_at = "now", status = "done", gsi1pk = "OWNER#ana", ' +
        'gsi1sk = "done#t1" REMOVE extra, gsi2pk, gsi2sk ADD hits 1',
    );
  });

  it('refuses a raw clause that writes an index attribute or an index key', () => {
    expect(() =>
      Task.tx.update(
        { id: 't1' },
        { expression: 'SET #s = :s', names: { '#s': 'status' }, values: { ':s': 'done' } },
      ),
    ).toThrow(/status/);
    expect(() => Task.tx.update({ id: 't1' }, { expression: 'REMOVE gsi1pk, gsi1sk' })).toThrow(/gsi1pk/);
    expect(() => Task.tx.update({ id: 't1' }, { expression: 'ADD due :x', values: { ':x': 1 } })).toThrow(
      /due/,
    );
    // Said at the call: this write moves no key.
    expect(
      sent(
        Task.tx.update(
          { id: 't1' },
          { expression: 'SET owner = if_not_exists(owner, :o)', values: { ':o': 'ana' }, keepsIndexes: true },
        ),
      ),
    ).toBe('SET owner = if_not_exists(owner, "ana")');
  });

  it('does not take a placeholder for a keyword (`:add`, `#set`)', () => {
    const text = sent(
      Task.tx.update(
        { id: 't1' },
        {
          expression: 'SET note = :add, #set = :set',
          names: { '#set': 'set' },
          values: { ':add': 'a', ':set': 's' },
        },
      ),
    );
    expect(text).toBe('SET note = "a", set = "s"');
  });

  it('refuses two access patterns on one GSI', () => {
    expect(() =>
      entity<Task>('clash')({
        key: (t: Pick<Task, 'id'>) => ({ pk: t.id, sk: 'X' }),
        indexes: {
          a: { gsi: 'gsi1', composite: ['id'], pk: () => 'A', sk: (t: Task) => t.id },
          b: { gsi: 'gsi1', composite: ['id'], pk: () => 'B', sk: (t: Task) => t.id },
        },
      }),
    ).toThrow(/one GSI/);
  });

  it('writes the keys of a put, and none of a sparse index whose `when` fails', () => {
    const stored = Task.item({ ...task, status: 'done' });
    expect(stored).toMatchObject({ gsi1pk: 'OWNER#ana', gsi1sk: 'done#t1' });
    expect(stored).not.toHaveProperty('gsi2pk');
  });
});

describe('store entities: every index declares the attributes its keys read', () => {
  const entities = {
    Access,
    AccountEntity,
    AlertEntity,
    Disconnect,
    ForfaitEntity,
    Nas,
    PaymentEntity,
    Rule,
    Session,
    Vlan,
  } as const;
  for (const [name, e] of Object.entries(entities)) {
    it(`${name}: pk, sk and when read only their composite attributes`, () => {
      for (const [index, def] of Object.entries(e.indexes as unknown as Record<string, IndexDef<unknown>>)) {
        const read = new Set<string>();
        const probe = new Proxy({} as Record<string, unknown>, {
          get: (_o, a) => {
            if (typeof a === 'string') read.add(a);
            return a === 'last_report_at' || a === 'created_at' || a === 'ts' || a === 'next_at'
              ? '2026-01-01T00:00:00Z'
              : 1;
          },
        });
        def.pk(probe);
        def.sk(probe);
        def.when?.(probe);
        expect(
          [...read].filter((a) => !def.composite.includes(a as never)),
          `${name}.${index}`,
        ).toEqual([]);
      }
    });
  }
});
