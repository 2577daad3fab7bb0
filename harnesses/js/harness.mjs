// icebird (JavaScript) behind the harness protocol (docs/harness-protocol.md): node reads one
// JSON request per line on stdin and writes one JSON reply per line on stdout.
//
//   node harness.mjs NODE_MODULES     (the directory holding node_modules/icebird: icebird@0.3.1)
//
// icebird reads tables (icebergRead); this harness declares table-scan only. What icebird does
// not have, the harness says instead of emulating it:
//   * a row filter other than true: icebird 0.3.1 has no filter API -> "unsupported";
//   * a snapshot other than the current one: icebird reads the current snapshot of the metadata
//     it is given, so the harness hands it the metadata with that snapshot (and its schema) as
//     the current one; what is read and how is icebird's.
// icebird fetches every file by URL; local paths (file:/..., /...) are served from disk by the
// fetch below (with HTTP range requests, as hyparquet asks for them).
// Rows cross in the spec's JSON single-value form (see toJsonValue): a template for another
// JavaScript implementation is the scan function and toJsonValue.

import { readFileSync, openSync, readSync, closeSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { gunzipSync } from 'node:zlib'

const PROTOCOL = 1
const modules = process.argv[2]
if (!modules) {
  process.stderr.write('usage: node harness.mjs NODE_MODULES\n')
  process.exit(2)
}
const pkgDir = join(modules, 'icebird')
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
const entry = pkg.exports?.['.']?.import ?? pkg.exports?.['.']?.default ?? pkg.main
const { icebergRead } = await import(pathToFileURL(join(pkgDir, entry)).href)

// --- local files through fetch ----------------------------------------------------------------

const networkFetch = globalThis.fetch
// A location is a path, not a URL: a writer's partition directory may hold a literal '%'
// (Spark writes s=a%2Fb for the value 'a/b'), while a location icebird turned into a URL object
// comes percent-encoded. The path as written is tried first, then its decoded form.
function localPaths(url) {
  const u = String(url)
  let raw
  if (u.startsWith('file://')) raw = u.slice(7)
  else if (u.startsWith('file:')) raw = u.slice(5)
  else if (u.startsWith('/')) raw = u
  else return null
  const out = [raw]
  try {
    out.push(decodeURIComponent(raw))
  } catch {
    // not a valid escape sequence: only the path as written
  }
  return out
}
globalThis.fetch = async (url, init = {}) => {
  const paths = localPaths(url instanceof URL ? url.href : url)
  if (paths === null) return networkFetch(url, init)
  let size, path
  for (const candidate of paths) {
    try {
      size = statSync(candidate).size
      path = candidate
      break
    } catch {
      // the next spelling
    }
  }
  if (path === undefined) return new Response(null, { status: 404, statusText: `no such file: ${paths[0]}` })
  if (init.method === 'HEAD') return new Response(null, { status: 200, headers: { 'Content-Length': String(size) } })
  const range = new Headers(init.headers).get('Range')
  let start = 0, end = size - 1
  const m = range && /^bytes=(\d+)-(\d*)$/.exec(range)
  if (m) {
    start = Number(m[1])
    if (m[2] !== '') end = Math.min(Number(m[2]), size - 1)
  }
  const buf = Buffer.alloc(Math.max(0, end - start + 1))
  const fd = openSync(path, 'r')
  try {
    readSync(fd, buf, 0, buf.length, start)
  } finally {
    closeSync(fd)
  }
  return new Response(buf, { status: m ? 206 : 200, headers: { 'Content-Length': String(buf.length) } })
}

// --- JSON with 64-bit integers and the float forms JSON.stringify loses --------------------------

// A raw JSON number text, written into the reply as is (a BigInt, -0.0, 2.0).
class Raw {
  constructor(text) { this.text = text }
}
const MARK = `\u2063${Math.random().toString(16).slice(2)}:` // a placeholder no value holds
function stringify(value) {
  const raws = []
  const text = JSON.stringify(value, (_, v) => {
    if (typeof v === 'bigint') v = new Raw(v.toString())
    if (v instanceof Raw) {
      raws.push(v.text)
      return `${MARK}${raws.length - 1}`
    }
    return v
  })
  return text.replace(new RegExp(`"${MARK}(\\d+)"`, 'g'), (_, i) => raws[Number(i)])
}
// 64-bit ids of table metadata as strings before JSON.parse, so none is rounded to a double
function parseMetadata(text) {
  return JSON.parse(text.replace(/("(?:current-snapshot-id|snapshot-id|parent-snapshot-id)"\s*:\s*)(-?\d+)/g, '$1"$2"'))
}

// --- values: what icebird returns -> the spec's JSON single-value form ----------------------------

function pad(n, width = 2) {
  return String(n).padStart(width, '0')
}
function microsText(micros) {
  // micros since 1970-01-01T00:00:00 (a BigInt) -> "YYYY-MM-DDTHH:MM:SS.ffffff"
  const MICROS_PER_DAY = 86400000000n
  let days = micros / MICROS_PER_DAY
  let rest = micros % MICROS_PER_DAY
  if (rest < 0n) { rest += MICROS_PER_DAY; days -= 1n }
  const date = new Date(Number(days) * 86400000)
  const secs = rest / 1000000n, frac = rest % 1000000n
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T` +
    `${pad(secs / 3600n)}:${pad((secs / 60n) % 60n)}:${pad(secs % 60n)}.${pad(frac, 6)}`
}
function micros(v) {
  if (v instanceof Date) return BigInt(v.getTime()) * 1000n
  return BigInt(v)
}
function float(v, single) {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return 'Infinity'
  if (v === -Infinity) return '-Infinity'
  if (Object.is(v, -0)) return new Raw('-0.0')
  let text = String(v)
  if (single) { // the shortest decimal that reads back as the same float
    for (let p = 1; p <= 9; p++) {
      const t = v.toPrecision(p)
      if (Math.fround(Number(t)) === v) { text = String(Number(t)); break }
    }
  }
  return new Raw(/[.eE]/.test(text) ? text.replace(/e\+?/, 'e') : text + '.0')
}
function hex(bytes) {
  return Buffer.from(bytes).toString('hex')
}
function decimalText(v, scale) {
  if (typeof v === 'bigint') {
    const neg = v < 0n, digits = (neg ? -v : v).toString().padStart(scale + 1, '0')
    const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits
    return (neg ? '-' : '') + text
  }
  return Number(v).toFixed(scale)
}

export function toJsonValue(type, v) {
  if (v === null || v === undefined) return null
  if (typeof type === 'object') {
    if (type.type === 'struct') {
      return Object.fromEntries(type.fields.map(f => [String(f.id), toJsonValue(f.type, v[f.name])]))
    }
    if (type.type === 'list') return Array.from(v, e => toJsonValue(type.element, e))
    if (type.type === 'map') {
      const pairs = v instanceof Map ? [...v.entries()]
        : Array.isArray(v) ? v.map(p => [p.key, p.value]) : Object.entries(v)
      return { keys: pairs.map(([k]) => toJsonValue(type.key, k)), values: pairs.map(([, x]) => toJsonValue(type.value, x)) }
    }
    throw new TypeError(`unknown type ${type.type}`)
  }
  if (type === 'boolean') return Boolean(v)
  if (type === 'int') return Number(v)
  if (type === 'long') return new Raw(BigInt(v).toString())
  if (type === 'float' || type === 'double') return float(Number(v), type === 'float')
  if (type.startsWith('decimal(')) return decimalText(v, Number(type.slice(8, -1).split(',')[1]))
  if (type === 'date') {
    const d = v instanceof Date ? v : new Date(Number(v) * 86400000)
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
  }
  if (type === 'time') return microsText(micros(v)).slice(11)
  if (type === 'timestamp') return microsText(micros(v))
  if (type === 'timestamptz') return microsText(micros(v)) + '+00:00'
  if (type === 'timestamp_ns' || type === 'timestamptz_ns') {
    const nanos = v instanceof Date ? BigInt(v.getTime()) * 1000000n : BigInt(v)
    let secs = nanos / 1000000000n, frac = nanos % 1000000000n
    if (frac < 0n) { frac += 1000000000n; secs -= 1n }
    const text = microsText(secs * 1000000n).slice(0, -7) + '.' + pad(frac, 9)
    return type === 'timestamptz_ns' ? text + '+00:00' : text
  }
  if (type === 'string') return typeof v === 'string' ? v : Buffer.from(v).toString('utf8')
  if (type === 'uuid') {
    if (typeof v === 'string') return v.toLowerCase()
    const h = hex(v)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
  if (type === 'binary' || type.startsWith('fixed[')) return hex(v)
  throw new TypeError(`no JSON single-value form for type ${type}`)
}

// --- the operations ---------------------------------------------------------------------------

class Unsupported extends Error {}

async function scan({ metadata_path, snapshot_id, row_filter }) {
  if (row_filter !== true) throw new Unsupported('icebird 0.3.1 has no row filter API (icebergRead takes a row range)')
  const raw = readFileSync(metadata_path)
  // a gzip-compressed metadata file (.gz.metadata.json, .metadata.json.gz)
  const text = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8')
  const metadata = parseMetadata(text)
  const id = snapshot_id ?? metadata['current-snapshot-id']
  const snapshot = (metadata.snapshots ?? []).find(s => s['snapshot-id'] === id)
  if (id === null || id === undefined || id === '-1' || !snapshot) {
    if (snapshot_id !== null) throw new Unsupported(`snapshot ${snapshot_id} is not in the metadata`)
    return [] // a table without a current snapshot has no rows
  }
  metadata['current-snapshot-id'] = id
  if (snapshot['schema-id'] !== undefined) metadata['current-schema-id'] = snapshot['schema-id']
  const schema = metadata.schemas.find(s => s['schema-id'] === metadata['current-schema-id'])
  const tableUrl = metadata.location
  const rows = await icebergRead({ tableUrl, metadata })
  return rows.map(row => Object.fromEntries(schema.fields.map(f => [f.name, toJsonValue(f.type, row[f.name])])))
}

const OPERATIONS = { scan }

async function answer(request) {
  const reply = { id: request.id }
  const operation = OPERATIONS[request.op]
  if (!operation) {
    reply.unsupported = `this harness does not implement ${request.op}`
    return reply
  }
  try {
    reply.result = await operation(request)
  } catch (e) {
    if (e instanceof Unsupported) reply.unsupported = e.message
    else reply.error = `${e?.name ?? 'Error'}: ${e?.message ?? e}`
  }
  return reply
}

function start(request) {
  return {
    id: request.id, protocol: PROTOCOL, implementation: 'icebird', language: 'javascript',
    version: `${pkg.version} (node ${process.versions.node})`, capabilities: ['table-scan'],
  }
}

// stdout carries the protocol only
console.log = console.error
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
for await (const line of lines) {
  if (!line.trim()) continue
  const request = JSON.parse(line)
  if (request.op === 'stop') break
  const reply = request.op === 'start' ? start(request) : await answer(request)
  process.stdout.write(stringify(reply) + '\n')
}
process.exit(0)
