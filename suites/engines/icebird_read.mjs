// Reads the current snapshot of an Iceberg table with icebird and prints its rows as JSON.
// stdin: {"tableUrl", "metadataUrl", "modules"} (modules: the node_modules directory holding icebird).
// Values JSON cannot hold are tagged: {"$bigint": "..."}, {"$bytes": "<hex>"}, {"$date": "<ISO>"},
// {"$float": "NaN" | "Infinity" | "-Infinity" | "-0.0"}.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const request = JSON.parse(readFileSync(0, 'utf8'))
// the package's own entry point (its "exports" has only an "import" condition)
const pkgDir = join(request.modules, 'icebird')
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
const entry = pkg.exports?.['.']?.import ?? pkg.exports?.['.']?.default ?? pkg.main
const { icebergRead } = await import(pathToFileURL(join(pkgDir, entry)).href)

const response = await fetch(request.metadataUrl)
if (!response.ok) throw new Error(`${request.metadataUrl}: HTTP ${response.status}`)
const metadata = await response.json()
const rows = await icebergRead({ tableUrl: request.tableUrl, metadata })

function tag(value) {
  if (typeof value === 'bigint') return { $bigint: value.toString() }
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { $float: 'NaN' }
    if (value === Infinity) return { $float: 'Infinity' }
    if (value === -Infinity) return { $float: '-Infinity' }
    if (Object.is(value, -0)) return { $float: '-0.0' }
    return value
  }
  if (value instanceof Date) return { $date: value.toISOString() }
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('hex') }
  if (Array.isArray(value)) return value.map(tag)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tag(v)]))
  }
  return value === undefined ? null : value
}
process.stdout.write(JSON.stringify(rows.map(tag)))
