#!/usr/bin/env node
// Writes generated.js (the per-namespace helpers and the error registry) and the generated
// region of index.d.ts (param/result types) from the OpenRPC document.
//
//   node generate.mjs [--schema PATH] [--check]
//
// The schema defaults to ../../schema/openrpc.json; --check exits 1 when either file differs
// from what the schema gives.

import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "..", "..");
export const DEFAULT_SCHEMA = join(REPO, "schema", "openrpc.json");
export const JS_OUT = join(HERE, "generated.js");
export const DTS_FILE = join(HERE, "index.d.ts");
export const BEGIN = "// <generated>";
export const END = "// </generated>";

/** Members of Latchkey (and EventEmitter) that a generated name must not shadow. */
export const RESERVED = new Set([
  "call", "notify", "close", "child", "exitCode", "stderrTail", "notifications", "timeout",
  "on", "once", "off", "emit", "addListener", "removeListener", "removeAllListeners",
  "prependListener", "prependOnceListener", "listeners", "rawListeners", "listenerCount",
  "eventNames", "setMaxListeners", "getMaxListeners", "constructor",
]);

/** Follows local `$ref` pointers. */
export function deref(doc, node) {
  for (let i = 0; i < 32; i++) {
    if (!node || typeof node.$ref !== "string") return node;
    if (!node.$ref.startsWith("#/")) throw new Error(`only local $refs are supported: ${node.$ref}`);
    node = node.$ref.slice(2).split("/")
      .reduce((at, part) => at[part.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
  }
  throw new Error("$ref chain too long");
}

/** `activation/start` → ["activation", "start"]; `ping` → ["", "ping"]. */
export function splitName(name) {
  const match = /^([^/.]*)[/.](.*)$/s.exec(name);
  return match ? [match[1], match[2]] : ["", name];
}

/** A property name usable after a dot: invalid characters → "_", clashes → suffix "_". */
export function identifier(name, taken = new Set()) {
  let ident = name.replace(/[^A-Za-z0-9_$]/g, "_") || "_";
  if (/^[0-9]/.test(ident)) ident = "_" + ident;
  while (taken.has(ident)) ident += "_";
  return ident;
}

const pascal = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean)
  .map((part) => part[0].toUpperCase() + part.slice(1)).join("") || "Anonymous";
const constantName = (reason) => identifier(reason.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase());
const propertyKey = (name) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));
const comment = (text, indent) => (text ? `${indent}/** ${String(text).replaceAll("*/", "*\\/").replace(/\s*\n\s*/g, " ")} */\n` : "");

/** reason → code from components.errors, sorted by code. */
export function errorRegistry(doc) {
  const entries = Object.entries(doc.components?.errors ?? {}).map(([key, error]) => {
    error = deref(doc, error);
    const reason = typeof error.data?.reason === "string" ? error.data.reason : key;
    return [reason, error.code];
  });
  return Object.fromEntries(entries.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)));
}

/** A TypeScript type for a JSON Schema. Component schemas are referred to by name. */
function tsType(doc, schema, indent = "") {
  if (schema?.$ref?.startsWith("#/components/schemas/")) return pascal(schema.$ref.split("/").pop());
  schema = deref(doc, schema);
  if (schema === null || typeof schema !== "object") return "unknown";
  const union = (types) => [...new Set(types)].join(" | ") || "never";
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v)));
  for (const key of ["oneOf", "anyOf"]) {
    if (Array.isArray(schema[key])) return union(schema[key].map((s) => tsType(doc, s, indent)));
  }
  if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => tsType(doc, s, indent)).join(" & ");
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => tsType(doc, { ...schema, type }, indent)));
  switch (schema.type) {
    case "string": return "string";
    case "integer": case "number": return "number";
    case "boolean": return "boolean";
    case "null": return "null";
    case "array": {
      const item = tsType(doc, schema.items ?? {}, indent);
      return /^[A-Za-z0-9_"]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case "object": case undefined:
      if (schema.type === undefined && !schema.properties) return "unknown";
      return objectType(doc, schema, indent);
    default: return "unknown";
  }
}

function objectType(doc, schema, indent) {
  const required = new Set(schema.required ?? []);
  const inner = indent + "  ";
  const lines = Object.entries(schema.properties ?? {}).map(([name, property]) =>
    comment(deref(doc, property)?.description, inner)
    + `${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${tsType(doc, property, inner)};\n`);
  const extra = schema.additionalProperties;
  if (extra !== false && (extra !== undefined || lines.length === 0)) {
    lines.push(`${inner}[key: string]: ${extra && extra !== true ? tsType(doc, extra, inner) : "unknown"};\n`);
  }
  return `{\n${lines.join("")}${indent}}`;
}

/** The text of generated.js and of the index.d.ts region for an OpenRPC document. */
export function generate(doc) {
  const registry = errorRegistry(doc);
  const reasons = new Map(Object.entries(registry).map(([reason, code]) => [code, reason]));
  const methods = [...(doc.methods ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groups = new Map();
  for (const method of methods) {
    const [prefix] = splitName(method.name);
    if (!groups.has(prefix)) groups.set(prefix, []);
    groups.get(prefix).push(method);
  }
  const namespaces = new Map([...groups.keys()].filter(Boolean).map((p) => [p, identifier(p, RESERVED)]));
  const topTaken = new Set([...RESERVED, ...namespaces.values()]);
  const typeNames = new Set();
  const typeName = (name) => {
    if (typeNames.has(name)) throw new Error(`two schema names both become the TypeScript type ${name}`);
    typeNames.add(name);
    return name;
  };
  // Not the schema's path: --check of another copy of the same document passes.
  const header = "Generated by clients/js/generate.mjs from Latchkey's OpenRPC document (`latchkey schema`) — do not edit";

  // -- types ---------------------------------------------------------------------------------
  const dts = [`${BEGIN} ${header} this region.\n\n`];
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const type = tsType(doc, schema);
    dts.push(comment(schema.description ?? schema.title, ""),
      type.startsWith("{") ? `export interface ${typeName(pascal(name))} ${type}\n\n`
        : `export type ${typeName(pascal(name))} = ${type};\n\n`);
  }
  const signatures = new Map(); // method name → (member name) → its declaration
  for (const method of methods) {
    const base = pascal(method.name);
    const params = (method.params ?? []).map((p) => deref(doc, p));
    const paramsType = typeName(`${base}Params`);
    const resultType = typeName(`${base}Result`);
    const properties = params.map((p) => comment(p.description ?? p.summary, "  ")
      + `  ${propertyKey(p.name)}${p.required ? "" : "?"}: ${tsType(doc, p.schema ?? {}, "  ")};\n`);
    dts.push(`/** Params of \`${method.name}\`. */\n`, properties.length
      ? `export interface ${paramsType} {\n${properties.join("")}}\n`
      : `export type ${paramsType} = Record<string, never>;\n`);
    const result = method.result ? deref(doc, method.result) : null;
    dts.push(`/** Result of \`${method.name}\`. */\n`,
      `export type ${resultType} = ${result ? tsType(doc, result.schema ?? {}) : "null"};\n\n`);
    const optional = params.some((p) => p.required) ? "" : "?";
    const errors = (method.errors ?? []).map((e) => deref(doc, e))
      .map((e) => `${reasons.get(e.code) ?? e.message} (${e.code})`);
    const doc_ = [`\`${method.name}\`${method.summary ? `: ${method.summary}` : ""}`,
      method.deprecated ? "@deprecated" : "", errors.length ? `Errors: ${errors.join(", ")}.` : ""];
    signatures.set(method.name, (member) => comment(doc_.filter(Boolean).join(" "), "  ")
      + `  ${member}(params${optional}: ${paramsType}, options?: CallOptions): Promise<${resultType}>;\n`);
  }

  dts.push("/** Every method: its params and result types. */\nexport interface MethodMap {\n");
  for (const method of methods) {
    const base = pascal(method.name);
    dts.push(`  ${JSON.stringify(method.name)}: { params: ${base}Params; result: ${base}Result };\n`);
  }
  dts.push("}\n\n");
  for (const [prefix, methodsOf] of groups) {
    if (!prefix) continue;
    const taken = new Set();
    const members = methodsOf.map((method) => {
      const attr = identifier(splitName(method.name)[1], taken);
      taken.add(attr);
      return signatures.get(method.name)(propertyKey(attr));
    });
    dts.push(`/** The \`${prefix}\` methods. */\nexport interface ${typeName(`${pascal(prefix)}Methods`)} {\n${members.join("")}}\n\n`);
  }
  dts.push("/** The generated members of Latchkey: a namespace object per prefix, a method per un-prefixed name. */\n",
    "export interface LatchkeyMethods {\n");
  for (const [prefix, ident] of namespaces) dts.push(`  readonly ${ident}: ${pascal(prefix)}Methods;\n`);
  for (const method of groups.get("") ?? []) {
    dts.push(signatures.get(method.name)(identifier(method.name, topTaken)));
  }
  dts.push("}\n\n",
    `export declare const SCHEMA_VERSION: string;\n`,
    `export declare const METHODS: readonly (keyof MethodMap)[];\n`,
    `export declare const ERROR_CODES: {\n${Object.entries(registry).map(([r, c]) => `  readonly ${propertyKey(r)}: ${c};\n`).join("")}};\n`,
    `export declare const ERROR_REASONS: { readonly [code: number]: string };\n`,
    `export declare const errors: {\n${Object.entries(registry).map(([r, c]) => `  readonly ${constantName(r)}: ${c};\n`).join("")}};\n`,
    `${END}\n`);

  // -- helpers -------------------------------------------------------------------------------
  const js = [`// ${header}.\n// Regenerate with: node clients/js/generate.mjs\n\n`,
    `/** The info.version of the schema these helpers were generated from. */\n`,
    `export const SCHEMA_VERSION = ${JSON.stringify(doc.info?.version ?? "")};\n\n`,
    `/** Every method name in the schema. */\nexport const METHODS = Object.freeze([\n`,
    ...methods.map((m) => `  ${JSON.stringify(m.name)},\n`), `]);\n\n`,
    `/** Error code by reason (\`data.reason\`). */\nexport const ERROR_CODES = Object.freeze({\n`,
    ...Object.entries(registry).map(([r, c]) => `  ${propertyKey(r)}: ${c},\n`), `});\n\n`,
    `/** Reason by error code. */\nexport const ERROR_REASONS = Object.freeze(\n`,
    `  Object.fromEntries(Object.entries(ERROR_CODES).map(([reason, code]) => [code, reason])));\n\n`,
    `/** Error codes as constants: \`errors.REGISTRATION_LOCKED === 1401\`. */\nexport const errors = Object.freeze({\n`,
    ...Object.entries(registry).map(([r, c]) => `  ${constantName(r)}: ${c},\n`), `});\n\n`,
    `/** The helpers of a client: \`helpers.activation.start(params, options)\` → \`client.call("activation/start", params, options)\`. */\n`,
    `export function bindMethods(client) {\n`,
    `  const method = (name) => (params, options) => client.call(name, params, options);\n`,
    `  return {\n`];
  for (const [prefix, ident] of namespaces) {
    const taken = new Set();
    js.push(`    ${propertyKey(ident)}: Object.freeze({\n`);
    for (const method of groups.get(prefix)) {
      const attr = identifier(splitName(method.name)[1], taken);
      taken.add(attr);
      js.push(`      ${propertyKey(attr)}: method(${JSON.stringify(method.name)}),\n`);
    }
    js.push(`    }),\n`);
  }
  for (const method of groups.get("") ?? []) {
    js.push(`    ${propertyKey(identifier(method.name, topTaken))}: method(${JSON.stringify(method.name)}),\n`);
  }
  js.push(`  };\n}\n`);
  return { js: js.join(""), dts: dts.join("") };
}

/** index.d.ts with its generated region replaced. */
export function spliceDts(current, region) {
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END, start);
  if (start < 0 || end < 0) throw new Error(`index.d.ts has no ${BEGIN} … ${END} region`);
  return current.slice(0, start) + region + current.slice(end + END.length + 1);
}

function main(argv) {
  const at = argv.indexOf("--schema");
  const schemaPath = resolve(at >= 0 ? argv[at + 1] : DEFAULT_SCHEMA);
  if (!existsSync(schemaPath)) {
    console.error(`${schemaPath} not found (pass --schema PATH)`);
    return 2;
  }
  const { js, dts } = generate(JSON.parse(readFileSync(schemaPath, "utf8")));
  const currentDts = readFileSync(DTS_FILE, "utf8");
  const newDts = spliceDts(currentDts, dts);
  if (argv.includes("--check")) {
    const currentJs = existsSync(JS_OUT) ? readFileSync(JS_OUT, "utf8") : "";
    if (currentJs !== js || currentDts !== newDts) {
      console.error("clients/js/generated.js or index.d.ts is out of date: run node clients/js/generate.mjs");
      return 1;
    }
    return 0;
  }
  writeFileSync(JS_OUT, js);
  writeFileSync(DTS_FILE, newDts);
  console.log(`wrote ${JS_OUT} and ${DTS_FILE}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
