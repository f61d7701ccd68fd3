import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { supervise } from '../../bin/local/child.js';
import { freeUdpPort, type LocalRadiusServer } from '../../bin/local/freeradius.js';
import { type MariaDb, startMariaDb } from './mariadb.js';
import { radiusdMain } from './peers.js';

/**
 * The peers the RADIUS bench measures the project against: FreeRADIUS with rlm_sql, as
 * daloRADIUS and PHPNuxBill installs run it, on SQLite (a library inside FreeRADIUS) or on
 * MariaDB (a server of its own, test/support/mariadb.ts). Debian's own files: the stock schema and
 * queries (/etc/freeradius/3.0/mods-config/sql/main/<dialect>; the database user and its grants
 * from the stock setup.sql on MariaDB), the stock `noresetcounter` query for the time a user has
 * (`Max-All-Session`, seconds over all sessions), a data counter of the same shape over radacct's
 * octets (`Max-Total-Octets`, what those panels add), one device per user (`Simultaneous-Use :=
 * 1`, checked in the session section against radacct), accounting rows in radacct and a
 * radpostauth row per login. SQLite's file is in WAL mode (the PRAGMA is the bootstrap's first
 * statement: FreeRADIUS creates the file from it, no sqlite3 CLI needed).
 */
export interface SqlRadiusUser {
  name: string;
  password: string;
  /** Max-All-Session: seconds of sessions in all. */
  seconds: number;
  /** Max-Total-Octets: bytes in and out in all. */
  octets: number;
}

/** Where the peer keeps its users and accounting. */
export type SqlDatabase = 'sqlite' | 'mariadb';

/** The peer: a FreeRADIUS process, with its clients' secret, and MariaDB's when it has one. */
export interface SqlRadius extends LocalRadiusServer {
  secret: string;
  dir: string;
  /** Every process of the peer's stack by name (the bench reads their CPU): FreeRADIUS, MariaDB. */
  pids: Record<string, number>;
  /** Runs SQL on the peer's database, answering its rows tab-separated (MariaDB's only). */
  sql?: (text: string) => Promise<string>;
}

const STOCK = '/etc/freeradius/3.0/mods-config';
const MODULE = { sqlite: 'rlm_sql_sqlite', mariadb: 'rlm_sql_mysql' } as const;
/** FreeRADIUS's name for each database's SQL (its folders of stock files). */
const DIALECT = { sqlite: 'sqlite', mariadb: 'mysql' } as const;
/** The database user FreeRADIUS connects as on MariaDB: the stock setup.sql's. */
const MARIADB_LOGIN = { user: 'radius', password: 'radpass' };

function binary(): string {
  for (const path of ['/usr/sbin/freeradius', '/usr/sbin/radiusd']) {
    if (spawnSync('test', ['-x', path]).status === 0) return path;
  }
  throw new Error(
    'freeradius was not found: `sudo apt-get install -y freeradius` (Debian; `.ci/run` does this)',
  );
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The users' check items, as INSERTs of 500 rows each. */
function userRows(users: SqlRadiusUser[]): string[] {
  const rows = users.flatMap((u) => [
    [u.name, 'Cleartext-Password', ':=', u.password],
    [u.name, 'Max-All-Session', ':=', String(u.seconds)],
    [u.name, 'Max-Total-Octets', ':=', String(u.octets)],
    [u.name, 'Simultaneous-Use', ':=', '1'],
  ]);
  const inserts = [];
  // One INSERT per 500 rows: both databases' limits are far above, the file stays readable.
  for (let i = 0; i < rows.length; i += 500) {
    inserts.push(
      `INSERT INTO radcheck (username, attribute, op, value) VALUES ${rows
        .slice(i, i + 500)
        .map((r) => `(${r.map(sqlString).join(', ')})`)
        .join(', ')};`,
    );
  }
  return inserts;
}

/** SQLite's bootstrap: WAL, the stock schema, the users' check items. */
function sqliteBootstrap(users: SqlRadiusUser[]): string {
  return [
    'PRAGMA journal_mode=WAL;',
    readFileSync(join(STOCK, 'sql/main/sqlite/schema.sql'), 'utf8'),
    'BEGIN;',
    ...userRows(users),
    'COMMIT;',
    '',
  ].join('\n');
}

/**
 * MariaDB's database: the stock schema, the stock setup.sql's user and grants (for 127.0.0.1,
 * where FreeRADIUS connects from, instead of `localhost`, the socket), the users' check items.
 */
async function mariadbDatabase(db: MariaDb, users: SqlRadiusUser[]): Promise<void> {
  await db.sql('CREATE DATABASE radius;');
  await db.sql(readFileSync(join(STOCK, 'sql/main/mysql/schema.sql'), 'utf8'), 'radius');
  const setup = readFileSync(join(STOCK, 'sql/main/mysql/setup.sql'), 'utf8')
    .replaceAll("'radius'@'localhost'", `'${MARIADB_LOGIN.user}'@'127.0.0.1'`)
    .replace(/IDENTIFIED BY '[^']*'/, `IDENTIFIED BY '${MARIADB_LOGIN.password}'`);
  await db.sql(setup);
  await db.sql(['BEGIN;', ...userRows(users), 'COMMIT;'].join('\n'), 'radius');
}

/** The data counter: the stock noresetcounter's shape over radacct's octets (`${key}` is FreeRADIUS's). */
const DATA_COUNTER_QUERY =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a FreeRADIUS expansion, not JavaScript's
  "SELECT IFNULL(SUM(acctinputoctets + acctoutputoctets),0) FROM radacct WHERE username = '%{${key}}'";

/**
 * Starts the peer on 127.0.0.1 (free UDP ports, its own folder, multi-threaded as deployed, no
 * `-X`), the client 127.0.0.1 with `secret`, on `database` (SQLite unless said): MariaDB started
 * first, its database made. Ready when FreeRADIUS says so.
 */
export async function startSqlRadius(options: {
  secret: string;
  users: SqlRadiusUser[];
  database?: SqlDatabase;
}): Promise<SqlRadius> {
  const database = options.database ?? 'sqlite';
  const dialect = DIALECT[database];
  const bin = binary();
  const module = `/usr/lib/freeradius/${MODULE[database]}.so`;
  if (spawnSync('test', ['-r', module]).status !== 0)
    throw new Error(
      `${module} is missing: \`sudo apt-get install -y freeradius${database === 'mariadb' ? ' freeradius-mysql' : ''}\``,
    );
  const db = database === 'mariadb' ? await startMariaDb() : undefined;
  try {
    if (db) await mariadbDatabase(db, options.users);
    return await startFreeRadiusOn(bin, database, dialect, db, options);
  } catch (error) {
    await db?.stop();
    throw error;
  }
}

async function startFreeRadiusOn(
  bin: string,
  database: SqlDatabase,
  dialect: 'sqlite' | 'mysql',
  db: MariaDb | undefined,
  options: { secret: string; users: SqlRadiusUser[] },
): Promise<SqlRadius> {
  const authPort = await freeUdpPort();
  let acctPort = await freeUdpPort();
  while (acctPort === authPort) acctPort = await freeUdpPort();
  const dir = mkdtempSync(join(tmpdir(), 'sql-radius-'));
  if (database === 'sqlite') writeFileSync(join(dir, 'bootstrap.sql'), sqliteBootstrap(options.users));
  // The stock queries, but for one line of SQLite's: Debian's 3.2.1 simul_verify_query looks the
  // open sessions up by the group attribute (`'%{${group_attribute}}'`, empty), finds none, and
  // lets a second device in; it is the user's name, as in simul_count_query (and in MySQL's).
  const queries = readFileSync(join(STOCK, `sql/main/${dialect}/queries.conf`), 'utf8');
  writeFileSync(
    join(dir, 'queries.conf'),
    queries.replace(
      /(simul_verify_query = "[^"]*?WHERE username = ')%\{\$\{group_attribute\}\}'/,
      "$1%{SQL-User-Name}'",
    ),
  );
  const connection =
    database === 'sqlite'
      ? `dialect = "sqlite"
    driver = "rlm_sql_sqlite"
    sqlite {
      filename = "${dir}/radius.db"
      busy_timeout = 2000
      bootstrap = "${dir}/bootstrap.sql"
    }`
      : `dialect = "mysql"
    driver = "rlm_sql_mysql"
    server = "127.0.0.1"
    port = ${db?.port}
    login = "${MARIADB_LOGIN.user}"
    password = "${MARIADB_LOGIN.password}"`;
  // The counters' attributes: Max-All-Session is in FreeRADIUS's dictionary, the data one is not.
  writeFileSync(
    join(dir, 'dictionary'),
    ['$INCLUDE /usr/share/freeradius/dictionary', 'ATTRIBUTE\tMax-Total-Octets\t3900\tinteger64', ''].join(
      '\n',
    ),
  );
  writeFileSync(
    join(dir, 'radiusd.conf'),
    `${radiusdMain(dir, { maxRequests: 4096, modconfdir: STOCK })}
thread pool {
  start_servers = 5
  max_servers = 32
  min_spare_servers = 3
  max_spare_servers = 10
  max_requests_per_server = 0
}
client bench {
  ipaddr = 127.0.0.1
  secret = "${options.secret}"
}
modules {
  pap {
  }
  chap {
  }
  # %{tolower:...} in the stock queries.
  expr {
  }
  sql {
    ${connection}
    radius_db = "radius"
    acct_table1 = "radacct"
    acct_table2 = "radacct"
    postauth_table = "radpostauth"
    authcheck_table = "radcheck"
    groupcheck_table = "radgroupcheck"
    authreply_table = "radreply"
    groupreply_table = "radgroupreply"
    usergroup_table = "radusergroup"
    delete_stale_sessions = yes
    pool {
      start = 5
      min = 3
      max = 32
      spare = 10
      uses = 0
      retry_delay = 1
      lifetime = 0
      idle_timeout = 60
    }
    client_table = "nas"
    group_attribute = "SQL-Group"
    $INCLUDE ${dir}/queries.conf
  }
  sqlcounter noresetcounter {
    sql_module_instance = sql
    dialect = ${dialect}
    counter_name = Max-All-Session-Time
    check_name = Max-All-Session
    key = User-Name
    reset = never
    $INCLUDE ${STOCK}/sql/counter/${dialect}/noresetcounter.conf
  }
  sqlcounter datacounter {
    sql_module_instance = sql
    dialect = ${dialect}
    counter_name = Total-Octets-Used
    check_name = Max-Total-Octets
    key = User-Name
    reset = never
    query = "${DATA_COUNTER_QUERY}"
  }
}
policy {
  # The stock policy's key (policy.d/accounting), without its Class branch.
  acct_unique {
    update request {
      &Acct-Unique-Session-Id := "%{md5:%{User-Name},%{Acct-Session-ID},%{%{NAS-IPv6-Address}:-%{NAS-IP-Address}},%{NAS-Identifier},%{NAS-Port-ID},%{NAS-Port}}"
    }
  }
}
server default {
  listen {
    type = auth
    ipaddr = 127.0.0.1
    port = ${authPort}
  }
  listen {
    type = acct
    ipaddr = 127.0.0.1
    port = ${acctPort}
  }
  authorize {
    chap
    sql
    noresetcounter
    datacounter
    pap
  }
  authenticate {
    Auth-Type PAP {
      pap
    }
    Auth-Type CHAP {
      chap
    }
  }
  preacct {
    acct_unique
  }
  accounting {
    sql
  }
  session {
    sql
  }
  post-auth {
    sql
    Post-Auth-Type REJECT {
      sql
    }
  }
}
`,
  );
  const child = spawn(bin, ['-f', '-l', 'stdout', '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { output, stop } = supervise(child, { cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  // Ready when it says so, however long a busy machine takes, unless it exits first.
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`freeradius (${database} peer) exited with code ${child.exitCode}:\n${output()}`);
    }
    if (output().includes('Ready to process requests')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    authPort,
    acctPort,
    secret: options.secret,
    pid: child.pid as number,
    pids: { FreeRADIUS: child.pid as number, ...(db ? { MariaDB: db.pid } : {}) },
    dir,
    output: () => (db ? `${output()}\nMariaDB:\n${db.output()}` : output()),
    ...(db ? { sql: (text: string) => db.sql(text, 'radius') } : {}),
    stop: async () => {
      await stop();
      await db?.stop();
    },
  };
}
