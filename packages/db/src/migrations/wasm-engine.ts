import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm';
import { type PgTarget, quoteIdent, withClient, withDatabase } from './pg-url';

// Prisma's schema engine compiled to WebAssembly (@prisma/schema-engine-wasm),
// talking to PostgreSQL through @prisma/adapter-pg: no native engine binary.

type EngineModule = typeof import('@prisma/schema-engine-wasm') & {
  __wbg_set_wasm(exports: WebAssembly.Exports): void;
};

export const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

let modulePromise: Promise<EngineModule> | undefined;

/**
 * The package's entry point imports the .wasm file as an ES module, which
 * Node 20 cannot do, so the wasm-bindgen glue (`schema_engine_bg.js`) is
 * loaded on its own and handed an instance we compile here.
 *
 * The glue is an ES module; Node's own require() loads it (Node >= 20.19), so
 * it is fetched through createRequire, which also bypasses jest's module
 * registry (jest would not parse ESM from node_modules). That makes the glue
 * one per process, shared by all test files of a jest worker: it is
 * instantiated only once.
 */
export function loadSchemaEngineModule(): Promise<EngineModule> {
  modulePromise ??= (async () => {
    const nodeRequire = createRequire(__filename);
    const gluePath = nodeRequire.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = nodeRequire(gluePath) as EngineModule;
    // Functions of the glue belong to Node's main realm, whose globals the wasm
    // code reads (under jest, test code runs in another realm).
    const realm = (glue.version.constructor as FunctionConstructor)('return globalThis')() as typeof globalThis & {
      PRISMA_WASM_PANIC_REGISTRY?: unknown;
    };
    realm.PRISMA_WASM_PANIC_REGISTRY ??= new PanicRegistry();
    if (!isInstantiated(glue)) {
      const bytes = readFileSync(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
      const { instance } = await realm.WebAssembly.instantiate(bytes, {
        './schema_engine_bg.js': glue as unknown as WebAssembly.ModuleImports,
      });
      if (!isInstantiated(glue)) {
        glue.__wbg_set_wasm(instance.exports);
        (instance.exports['__wbindgen_start'] as () => void)();
      }
    }
    return glue;
  })();
  modulePromise.catch(() => (modulePromise = undefined));
  return modulePromise;
}

function isInstantiated(glue: EngineModule): boolean {
  try {
    glue.version();
    return true;
  } catch {
    return false;
  }
}

/** Receives the message of a Rust panic (the CLI keeps the same global). */
class PanicRegistry {
  private message = '';
  get(): string {
    return this.message;
  }
  set_message(message: string): void {
    this.message = `RuntimeError: ${message}`;
  }
}

export interface OpenEngine {
  engine: SchemaEngine;
  /** Frees the engine and ends its connections (releasing the engine's advisory lock). */
  close(): Promise<void>;
}

/**
 * `datamodel` is only needed by commands that read the schema's datasource
 * (none of the ones used here do; diff and createMigration take it as input).
 */
export async function openSchemaEngine(target: PgTarget, datamodel?: string): Promise<OpenEngine> {
  const glue = await loadSchemaEngineModule();
  const pools: pg.Pool[] = [];
  const factory = migrationAdapterFactory(target, pools);
  const log = process.env['WEFT_SCHEMA_ENGINE_DEBUG']
    ? (line: string) => process.stderr.write(`[schema-engine] ${line}\n`)
    : () => undefined;
  const endPools = () => Promise.all(pools.map((p) => p.end().catch(() => undefined))).then(() => undefined);
  let engine: SchemaEngine;
  try {
    engine = await glue.SchemaEngine.new(
      { datamodels: datamodel === undefined ? undefined : [['schema.prisma', datamodel]] },
      log,
      bindMigrationAwareSqlAdapterFactory(factory),
    );
  } catch (err) {
    await endPools();
    throw err;
  }
  let closed = false;
  return {
    engine,
    async close() {
      if (closed) return;
      closed = true;
      engine.free();
      await endPools();
    },
  };
}

/**
 * PrismaPg's own factory is close but not enough here:
 * - its result sets fail on pg's internal `"char"` type (oid 18), which the
 *   engine's schema describer selects from pg_catalog; it is reported as text;
 * - its shadow database is dropped while its pool still holds a connection to
 *   it, so the DROP fails and the database is left behind;
 * - the engine never disposes the main connection, so its pool is ended by
 *   `close()`.
 */
function migrationAdapterFactory(target: PgTarget, pools: pg.Pool[]): SqlMigrationAwareDriverAdapterFactory {
  const makePool = (config: pg.PoolConfig) => {
    const pool = new pg.Pool({ ...config, max: 4 });
    pool.on('connect', reportCharAsText);
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const main = new PrismaPg(makePool(target.config), { schema: target.schema });
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: () => main.connect(),
    async connectToShadowDb(): Promise<SqlDriverAdapter> {
      const name = `prisma_migrate_shadow_db_${randomUUID()}`;
      await withClient(target.plain, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
      const pool = makePool(withDatabase(target.plain, name));
      const shadow = await new PrismaPg(pool).connect();
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        await dispose();
        await pool.end().catch(() => undefined);
        await withClient(target.plain, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
      };
      return shadow;
    },
  };
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

function charAsText<T>(result: T): T {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  if (Array.isArray(fields)) {
    for (const field of fields) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  }
  return result;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function reportCharAsText(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const cbIndex = args.findIndex((a) => typeof a === 'function');
    if (cbIndex >= 0) {
      const cb = args[cbIndex] as (err: unknown, res: unknown) => void;
      args[cbIndex] = (err: unknown, res: unknown) => cb(err, err ? res : charAsText(res));
      return query(...args);
    }
    const out = query(...args);
    return isThenable(out) ? out.then(charAsText) : out;
  };
}
