import type { DuckDBResultReader, DuckDBType, Json } from '@duckdb/node-api';

/**
 * Query results as plain JSON-safe objects: integers that fit a double become numbers (bigger
 * ones stay strings), decimals likewise, timestamps ISO 8601, JSON columns parsed. What a
 * script or an agent reading `--json` expects, with no precision silently lost.
 */
export interface PlainResult {
  columns: { name: string; type: string }[];
  rows: Record<string, Json>[];
}

type Convert = (value: Json) => Json;

export function plainResult(reader: DuckDBResultReader): PlainResult {
  const plain = plainRows(reader.columnNames(), reader.columnTypes());
  return { columns: plain.columns, rows: plain.convert(reader.getRowsJson()) };
}

/** The columns of a result and a converter for its rows, for results read a chunk at a time. */
export function plainRows(names: string[], types: DuckDBType[]): { columns: PlainResult['columns']; convert: (rows: Json[][]) => Record<string, Json>[] } {
  const converters = types.map(converterFor);
  const convert = (rows: Json[][]): Record<string, Json>[] =>
    rows.map((row) => {
      const out: Record<string, Json> = {};
      row.forEach((value, i) => {
        out[names[i]!] = converters[i]!(value);
      });
      return out;
    });
  return { columns: names.map((name, i) => ({ name, type: typeName(types[i]!) })), convert };
}

function typeName(type: DuckDBType): string {
  return type.alias ?? type.toString();
}

function converterFor(type: DuckDBType): Convert {
  const name = type.toString();
  if (type.alias === 'JSON') return parseJson;
  if (/^(U?BIGINT|U?HUGEINT|DECIMAL)/.test(name)) return toSafeNumber;
  if (name.startsWith('TIMESTAMP')) return toIsoTime;
  return (value) => value;
}

function parseJson(value: Json): Json {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as Json;
  } catch {
    return value;
  }
}

function toSafeNumber(value: Json): Json {
  if (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value)) return value;
  const number = Number(value);
  const digits = value.replace(/[-.]/g, '').replace(/^0+/, '').length;
  return Number.isFinite(number) && digits <= 15 ? number : value;
}

/** '2026-01-02 03:04:05.123+00' → '2026-01-02T03:04:05.123Z'; without a zone, no Z. */
function toIsoTime(value: Json): Json {
  if (typeof value !== 'string') return value;
  return value.replace(' ', 'T').replace(/\+00(:00)?$/, 'Z');
}
