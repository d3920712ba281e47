// Validates Kubernetes manifests the way an API server with strict field
// validation would judge them, without a cluster: every document against
// its kind's schema, unknown fields refused.
//
//   node validate.mjs --chaos-mesh-crds CRD.yaml FILE.yaml...
//
// Kubernetes' own kinds are checked with kubernetes-models (schemas from
// Kubernetes' OpenAPI), Strimzi's with @kubernetes-models/strimzi-kafka-operator
// (schemas from Strimzi's CRDs), Chaos Mesh's with ajv against the
// openAPIV3Schema of Chaos Mesh's own CRDs (the file given, from its Go
// module). Prints one line per document; exits 1 if any is invalid, 2 on
// bad usage or an unknown kind.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { parseAllDocuments } from "yaml";
import Ajv from "ajv";
import * as batch from "kubernetes-models/batch/v1";
import * as core from "kubernetes-models/v1";
import * as rbac from "kubernetes-models/rbac.authorization.k8s.io/v1";
import * as strimzi from "@kubernetes-models/strimzi-kafka-operator/kafka.strimzi.io/v1";

const args = process.argv.slice(2);
const at = args.indexOf("--chaos-mesh-crds");
if (at < 0 || at + 1 >= args.length) {
  console.error("usage: node validate.mjs --chaos-mesh-crds CRD.yaml FILE.yaml...");
  process.exit(2);
}
const crdFile = args[at + 1];
const files = args.filter((_, i) => i !== at && i !== at + 1);

const here = dirname(fileURLToPath(import.meta.url));

// Models: apiVersion -> the module of its kinds (classes with validate())
// and the path their TypeScript declarations are imported from.
const models = {
  "batch/v1": { kinds: batch, path: "kubernetes-models/batch/v1" },
  v1: { kinds: core, path: "kubernetes-models/v1" },
  "rbac.authorization.k8s.io/v1": { kinds: rbac, path: "kubernetes-models/rbac.authorization.k8s.io/v1" },
  "kafka.strimzi.io/v1": { kinds: strimzi, path: "@kubernetes-models/strimzi-kafka-operator/kafka.strimzi.io/v1" },
};

// strictObjects makes a structural schema refuse unknown fields, as an API
// server's strict field validation does: every object with properties and
// no additionalProperties or x-kubernetes-preserve-unknown-fields gets
// additionalProperties: false.
// OpenAPI 3.0's boolean exclusiveMinimum and exclusiveMaximum become the
// numbers JSON Schema (ajv) wants.
function strictObjects(s) {
  if (s === null || typeof s !== "object") return s;
  if (Array.isArray(s)) return s.map(strictObjects);
  const out = {};
  for (const [k, v] of Object.entries(s)) out[k] = strictObjects(v);
  for (const [ex, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]]) {
    if (out[ex] === true) {
      out[ex] = out[bound];
      delete out[bound];
    } else if (out[ex] === false) {
      delete out[ex];
    }
  }
  if (out.properties && out.additionalProperties === undefined && !out["x-kubernetes-preserve-unknown-fields"]) {
    out.additionalProperties = false;
  }
  return out;
}

// Chaos Mesh: apiVersion -> kind -> its validator, from its CRDs, made
// strict and compiled only when a document of that kind comes. Formats
// (int32, date-time) are not checked: the types and bounds are.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false });
const chaos = {};
for (const doc of parseAllDocuments(readFileSync(crdFile, "utf8"))) {
  const crd = doc.toJSON();
  if (!crd || crd.kind !== "CustomResourceDefinition") continue;
  for (const v of crd.spec.versions ?? []) {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) continue;
    const apiVersion = `${crd.spec.group}/${v.name}`;
    chaos[apiVersion] ??= {};
    let compiled;
    // metadata is the API server's: any object.
    chaos[apiVersion][crd.spec.names.kind] = () =>
      (compiled ??= ajv.compile(strictObjects({ ...schema, properties: { ...schema.properties, metadata: { type: "object" } } })));
  }
}
if (Object.keys(chaos).length === 0) {
  console.error(`${crdFile}: no CustomResourceDefinition with a schema`);
  process.exit(2);
}

let bad = 0;
let unknown = 0;
const typed = [];
for (const file of files) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  docs.forEach((d, i) => {
    const where = `${file}#${i + 1}`;
    if (d.errors.length > 0) {
      console.log(`INVALID ${where}: YAML: ${d.errors[0].message}`);
      bad++;
      return;
    }
    const obj = d.toJSON();
    if (obj === null) return;
    const name = `${obj.kind} ${obj.metadata?.name ?? "(no name)"}`;
    const check = chaos[obj.apiVersion]?.[obj.kind]?.();
    if (check) {
      if (check(obj)) {
        console.log(`valid ${where}: ${obj.apiVersion} ${name} (Chaos Mesh CRD schema)`);
      } else {
        const e = check.errors.map((x) => `${x.instancePath || "/"} ${x.message}${x.params?.additionalProperty ? ` (${x.params.additionalProperty})` : ""}${x.params?.allowedValues ? ` (${x.params.allowedValues.join(", ")})` : ""}`);
        console.log(`INVALID ${where}: ${obj.apiVersion} ${name}: ${e.join("; ")}`);
        bad++;
      }
      return;
    }
    const Model = models[obj.apiVersion]?.kinds[obj.kind];
    if (!Model) {
      console.log(`UNKNOWN ${where}: no schema here for ${obj.apiVersion} ${obj.kind}`);
      unknown++;
      return;
    }
    try {
      new Model(obj).validate();
    } catch (err) {
      console.log(`INVALID ${where}: ${obj.apiVersion} ${name}: ${err.message.split("\n").slice(0, 4).join("; ")}`);
      bad++;
      return;
    }
    typed.push({ where, name, obj, module: `${models[obj.apiVersion].path}/${obj.kind}`, type: `I${obj.kind}` });
  });
}
// The models' schemas accept fields they do not know; an API server with
// strict field validation does not. TypeScript's excess-property check on
// the models' own types finds them (and any type the schema let pass).
const typeErrors = typed.length > 0 ? typeCheck(typed) : new Map();
for (const t of typed) {
  const errs = typeErrors.get(t.where) ?? [];
  if (errs.length > 0) {
    console.log(`INVALID ${t.where}: ${t.obj.apiVersion} ${t.name}: ${errs.slice(0, 4).join("; ")}`);
    bad++;
  } else {
    console.log(`valid ${t.where}: ${t.obj.apiVersion} ${t.name}`);
  }
}
if (typeErrors.has("(the declarations)")) {
  console.log(`INVALID the models' declarations: ${typeErrors.get("(the declarations)").slice(0, 4).join("; ")}`);
  bad++;
}
process.exit(unknown > 0 ? 2 : bad > 0 ? 1 : 0);

// typeCheck compiles one TypeScript file per document, `const doc: IKind =
// <the document>`, against the models' declarations, and returns the
// compiler's errors by document.
function typeCheck(docs) {
  const dir = mkdtempSync(join(here, ".check-"));
  try {
    const roots = docs.map((t, i) => {
      const f = join(dir, `doc${i}.mts`);
      writeFileSync(f, `import type { ${t.type} } from "${t.module}";\nexport const doc: ${t.type} = ${JSON.stringify(t.obj, null, 2)};\n`);
      return f;
    });
    const program = ts.createProgram(roots, {
      strict: true, noEmit: true, skipLibCheck: true, types: [],
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const out = new Map();
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const i = d.file ? roots.indexOf(d.file.fileName) : -1;
      const key = i >= 0 ? docs[i].where : "(the declarations)";
      const msg = ts.flattenDiagnosticMessageText(d.messageText, " ").replace(/\s+/g, " ");
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const text = d.file ? d.file.getFullText().split("\n")[line].trim() : "";
      out.set(key, [...(out.get(key) ?? []), `${msg}${text ? ` at ${text}` : ""}`]);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
