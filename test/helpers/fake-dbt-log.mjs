/**
 * dbt's log file, as dbt_common's logger writes it (checked against dbt-labs/dbt-common
 * dbt_common/events/logger.py): a RotatingFileHandler (max bytes 10 MB unless
 * --log-file-max-bytes / DBT_LOG_FILE_MAX_BYTES says otherwise, five backups), one record a line.
 * - debug text (the file's default): `HH:MM:SS.ffffff [level] [MainThread]: msg`; the first
 *   event of an invocation (MainReportVersion, "Running with dbt=…") is preceded by two empty
 *   lines and `============================== <ts> | <invocation_id> ==============================`.
 * - json (--log-format json, or --log-format-file json): json.dumps(sort_keys=True) of
 *   {data, info: {category, code, extra, invocation_id, level, msg, name, pid, thread, ts}}.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

const BACKUPS = 5;

/** Python's json.dumps spacing (", " and ": "), keys sorted. */
function pythonJson(value) {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}: ${pythonJson(value[k])}`).join(', ')}}`;
  return JSON.stringify(value);
}

function timeOfDay(date) {
  return `${date.toISOString().slice(11, 19)}.${String(date.getUTCMilliseconds() * 1000).padStart(6, '0')}`;
}

export function openLog({ dir, flags, env, invocationId }) {
  const format = flags['log-format-file'] ?? env.DBT_LOG_FORMAT_FILE ?? (flags['log-format'] ?? env.DBT_LOG_FORMAT) ?? 'debug';
  const maxBytes = Number(flags['log-file-max-bytes'] ?? env.DBT_LOG_FILE_MAX_BYTES ?? 10 * 1024 * 1024);
  const file = path.join(dir, 'dbt.log');
  mkdirSync(dir, { recursive: true });
  // FAKE_DBT_LOG_COPY: a directory where each invocation's records are also appended to
  // <invocation_id>.log, so tests know what was written without reading dbt.log back.
  const copy = env.FAKE_DBT_LOG_COPY ? path.join(env.FAKE_DBT_LOG_COPY, `${invocationId}.log`) : null;
  if (copy) mkdirSync(path.dirname(copy), { recursive: true });
  const emit = (record) => {
    if (copy) appendFileSync(copy, record);
    const bytes = Buffer.byteLength(record);
    // RotatingFileHandler.shouldRollover: the stream's position plus this record reaching maxBytes.
    if (maxBytes > 0 && existsSync(file) && statSync(file).size > 0 && statSync(file).size + bytes >= maxBytes) rotate(file);
    appendFileSync(file, record);
  };
  return {
    write(level, msg) {
      const now = new Date();
      if (format === 'json') {
        const name = msg.startsWith('Running with dbt=') ? 'MainReportVersion' : 'Note';
        const info = { category: '', code: name === 'MainReportVersion' ? 'A001' : 'Z050', extra: {}, invocation_id: invocationId, level, msg, name, pid: process.pid, thread: 'MainThread', ts: now.toISOString().replace('Z', '000Z') };
        emit(`${pythonJson({ data: { msg }, info })}\n`);
        return;
      }
      const ts = timeOfDay(now);
      const banner = msg.startsWith('Running with dbt=') ? `\n\n${'='.repeat(30)} ${ts} | ${invocationId} ${'='.repeat(30)}\n` : '';
      emit(`${banner}${ts} [${level.padEnd(5)}] [MainThread]: ${msg}\n`);
    },
  };
}

/** dbt.log.4 → .5, …, dbt.log → dbt.log.1 (the oldest backup is overwritten). */
function rotate(file) {
  for (let i = BACKUPS - 1; i >= 1; i--) if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
  renameSync(file, `${file}.1`);
}
