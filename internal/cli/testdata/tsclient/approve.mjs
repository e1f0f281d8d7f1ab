// An official TypeScript SDK client against `toolscope serve` on stdio:
// list, then Write three times with the user answering allow, decline and
// always, then a fourth Write the "always" rule covers. Prints one JSON
// line per step. Usage:
//
//   node approve.mjs v1|v2 SDK_NODE_MODULES TOOLSCOPE DIR
//
// v1 is @modelcontextprotocol/sdk (protocol 2025-11-25, asked by an
// elicitation request); v2 is @modelcontextprotocol/client pinned to
// 2026-07-28 (asked by an input_required result, answered by a retry).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [flavour, modules, toolscope, dir] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(modules, p)).href);

const answers = [{ allow: true }, null, { allow: true, always: true }];
let asked = 0;
const answer = () => {
  const a = answers[asked++];
  return a ? { action: 'accept', content: a } : { action: 'decline' };
};

let client, transport;
const server = { command: toolscope, args: ['serve', '--cwd', dir], stderr: 'inherit' };
if (flavour === 'v2') {
  const { Client } = await load('@modelcontextprotocol/client/dist/index.mjs');
  const { StdioClientTransport } = await load('@modelcontextprotocol/client/dist/stdio.mjs');
  client = new Client({ name: 'approve', version: '1' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  client.setRequestHandler('elicitation/create', async () => answer());
  transport = new StdioClientTransport(server);
} else {
  const { Client } = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
  const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
  const { ElicitRequestSchema } = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
  client = new Client({ name: 'approve', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => answer());
  transport = new StdioClientTransport(server);
}
await client.connect(transport);
const out = (o) => console.log(JSON.stringify(o));
out({ step: 'version', version: client.getServerVersion()?.name, era: client.getProtocolEra?.() ?? 'legacy' });
const { tools } = await client.listTools();
out({ step: 'list', tools: tools.map((t) => t.name).sort() });
for (const name of ['one.txt', 'two.txt', 'three.txt', 'three.txt']) {
  const before = asked;
  const r = await client.callTool({ name: 'Write', arguments: { file_path: path.join(dir, name), content: name } });
  const text = (r.content ?? []).map((c) => c.text ?? '').join('');
  out({ step: 'call', name, isError: !!r.isError, asked: asked - before, text: text.slice(0, 300) });
  if (name === 'three.txt' && asked === 3) {
    // Write wants the file read before it is written again.
    await client.callTool({ name: 'Read', arguments: { file_path: path.join(dir, name) } });
  }
}
await client.close();
