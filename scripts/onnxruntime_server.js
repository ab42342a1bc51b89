// Serves timed runs of one model with onnxruntime-node to a benchmark program, so that the two
// runtimes alternate in one run: it loads MODEL with THREADS intra-op threads and the inputs given
// (NAME=FILE.pb, TensorProto files), prints "ready", then for each line "run" on stdin runs the
// model once and prints the milliseconds it took; "quit" or the end of stdin ends it.
//
//   node scripts/onnxruntime_server.js MODEL THREADS NAME=INPUT.pb...
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const npm = path.join(__dirname, '..', 'third_party', 'npm', 'node_modules');
const ort = require(path.join(npm, 'onnxruntime-node'));
const protobuf = require(path.join(npm, 'protobufjs'));

const TensorProto = protobuf.loadSync(process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto')
  .lookupType('onnx.TensorProto');

function readFloatTensor(file) {
  const p = TensorProto.decode(fs.readFileSync(file));
  if (p.dataType !== 1 || !p.rawData || p.rawData.length === 0) throw new Error(`${file}: only raw float32 tensors`);
  const bytes = Buffer.from(p.rawData);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor('float32', data, p.dims.map(Number));
}

async function main() {
  const [model, threads, ...specs] = process.argv.slice(2);
  const inputs = {};
  for (const spec of specs) {
    const [name, file] = spec.split('=');
    inputs[name] = readFloatTensor(file);
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: 'sequential',
  });
  await session.run(inputs);  // the first run allocates; it is not timed
  console.log('ready');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim() !== 'run') break;
    const start = process.hrtime.bigint();
    await session.run(inputs);
    console.log((Number(process.hrtime.bigint() - start) / 1e6).toFixed(4));
  }
}

main().catch((e) => { console.log(`error: ${e.message}`); process.exit(1); });
