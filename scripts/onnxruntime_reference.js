// Runs an ONNX model with onnxruntime-node on TensorProto inputs and writes its outputs as
// TensorProto files: the references Tessera's graph layer is compared with, and its speed peer.
//
//   node scripts/onnxruntime_reference.js MODEL.onnx OUT_DIR NAME=INPUT.pb... [--keep NAME]...
//        [--keep-sigmoid-input] [--threads N] [--time N]
//
// NAME=random:1x3x640x640:SEED makes a float32 input of that shape, uniform in [-2, 2) from a
// seeded generator, and writes it to OUT_DIR/inputs/NAME.pb so that another runtime can read it.
// --keep NAME also writes the intermediate value NAME (it becomes an output of the model);
// --keep-sigmoid-input keeps the input of every Sigmoid that produces an output of the model (a
// detector's pre-sigmoid values). --time N runs N more times and prints the median time in ms.
// Packages come from third_party/npm (scripts/install_dependencies.sh installs them there).
'use strict';
const fs = require('fs');
const path = require('path');
const npm = path.join(__dirname, '..', 'third_party', 'npm', 'node_modules');
const ort = require(path.join(npm, 'onnxruntime-node'));
const protobuf = require(path.join(npm, 'protobufjs'));

const onnxProto = process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto';
const root = protobuf.loadSync(onnxProto);
const ModelProto = root.lookupType('onnx.ModelProto');
const TensorProto = root.lookupType('onnx.TensorProto');

const FLOAT = 1, INT64 = 7, INT32 = 6;
const arrays = {
  [FLOAT]: ['float32', Float32Array], [INT64]: ['int64', BigInt64Array], [INT32]: ['int32', Int32Array],
};

function readTensor(file) {
  const p = TensorProto.decode(fs.readFileSync(file));
  const [type, Array] = arrays[p.dataType] || [];
  if (!type || !p.rawData || p.rawData.length === 0) throw new Error(`${file}: only raw float32, int32 and int64 tensors`);
  const bytes = Buffer.from(p.rawData);
  const data = new Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, data, p.dims.map(Number));
}

// A float32 tensor from a seeded linear congruential generator: the same on every machine.
function randomTensor(spec) {
  const [, shapeText, seedText] = spec.split(':');
  const dims = shapeText.split('x').map(Number);
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  let state = BigInt(seedText || 1);
  for (let i = 0; i < data.length; i++) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    data[i] = Number(state >> 40n) / 2 ** 24 * 4 - 2;
  }
  return new ort.Tensor('float32', data, dims);
}

function writeTensor(tensor, name, file) {
  const code = Object.keys(arrays).find((k) => arrays[k][0] === tensor.type);
  if (!code) throw new Error(`${name}: cannot write a tensor of ${tensor.type}`);
  const data = tensor.data;
  const proto = TensorProto.create({
    name, dataType: Number(code), dims: tensor.dims,
    rawData: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
  });
  fs.writeFileSync(file, TensorProto.encode(proto).finish());
}

function withOutputs(modelBytes, keep, keepSigmoidInput) {
  const model = ModelProto.decode(modelBytes);
  const graph = model.graph;
  const outputs = new Set(graph.output.map((o) => o.name));
  const names = [...keep];
  if (keepSigmoidInput)
    for (const node of graph.node)
      if (node.opType === 'Sigmoid' && outputs.has(node.output[0])) names.push(node.input[0]);
  for (const name of names)
    if (!outputs.has(name)) graph.output.push({ name, type: { tensorType: { elemType: FLOAT } } });
  return { bytes: ModelProto.encode(model).finish(), kept: names };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function main() {
  const args = process.argv.slice(2);
  const keep = [], inputs = {}, randomInputs = [];
  let threads = 1, time = 0, keepSigmoidInput = false;
  const positional = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--keep') keep.push(args[++i]);
    else if (args[i] === '--keep-sigmoid-input') keepSigmoidInput = true;
    else if (args[i] === '--threads') threads = Number(args[++i]);
    else if (args[i] === '--time') time = Number(args[++i]);
    else if (args[i].includes('=')) {
      const [name, file] = args[i].split('=');
      inputs[name] = file.startsWith('random:') ? randomTensor(file) : readTensor(file);
      if (file.startsWith('random:')) randomInputs.push(name);
    } else positional.push(args[i]);
  }
  if (positional.length !== 2) throw new Error('usage: MODEL.onnx OUT_DIR NAME=INPUT.pb... [options]');
  const [modelFile, outDir] = positional;
  const { bytes, kept } = withOutputs(fs.readFileSync(modelFile), keep, keepSigmoidInput);
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const results = await session.run(inputs);
  fs.mkdirSync(path.join(outDir, 'inputs'), { recursive: true });
  for (const name of randomInputs) writeTensor(inputs[name], name, path.join(outDir, 'inputs', `${name}.pb`));
  for (const [name, tensor] of Object.entries(results)) {
    const file = path.join(outDir, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.pb');
    writeTensor(tensor, name, file);
    console.log(`${name}: ${tensor.type}[${tensor.dims}] -> ${file}${kept.includes(name) ? ' (kept)' : ''}`);
  }
  if (time > 0) {
    const ms = [];
    for (let i = 0; i < time; i++) {
      const start = process.hrtime.bigint();
      await session.run(inputs);
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    console.log(`onnxruntime ${ort.env.versions.common} threads ${threads}: median run time ${median(ms).toFixed(3)} ms over ${time} runs`);
  }
}

main().catch((e) => { console.error(`onnxruntime_reference: ${e.message}`); process.exit(1); });
