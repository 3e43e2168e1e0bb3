// Drives a shellcap MCP server with the TypeScript MCP SDK and prints what
// it saw as one JSON object, for the Go integration test to check.
//
//   node client.mjs stdio COMMAND [ARGS...]   (server on stdio)
//   node client.mjs http URL                  (streamable HTTP; SHELLCAP_TOKEN is sent as a bearer token)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...args] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args, env: process.env, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target), {
        requestInit: { headers: { Authorization: `Bearer ${process.env.SHELLCAP_TOKEN ?? ""}` } },
      });

const client = new Client({ name: "shellcap-ts-test", version: "1.0.0" });
await client.connect(transport);
const out = { protocol: client.getServerVersion()?.name };

out.tools = (await client.listTools()).tools.map((t) => t.name);

const progress = [];
const run = await client.callTool(
  { name: "run_command", arguments: { command: "for i in 1 2 3; do echo line$i; sleep 0.1; done; exit 2" } },
  undefined,
  { onprogress: (p) => progress.push(p.message ?? ""), timeout: 60000 },
);
out.run = run.content[0].text;
out.runExitCode = run.structuredContent?.exit_code;
out.progress = progress.join("");

const denied = await client.callTool({ name: "run_command", arguments: { command: "rm -rf /" } });
out.denied = { isError: denied.isError === true, text: denied.content[0].text };

if (out.tools.includes("start_command")) {
  const started = await client.callTool({ name: "start_command", arguments: { command: "echo job-out; sleep 60" } });
  const id = /ID: ([0-9a-f]{32})/.exec(started.content[0].text)?.[1];
  out.job = { started: started.content[0].text.replace(id, "<id>") };
  for (let i = 0; i < 100; i++) {
    const check = await client.callTool({ name: "check_command", arguments: { command_id: id } });
    out.job.check = check.content[0].text;
    if (out.job.check.includes("job-out")) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const stopped = await client.callTool({ name: "stop_command", arguments: { command_id: id } });
  out.job.stop = stopped.content[0].text;
}

if (out.tools.includes("bash")) {
  await client.callTool({ name: "bash", arguments: { command: "export FROM_TS=kept; mkdir -p d && cd d" } });
  const again = await client.callTool({ name: "bash", arguments: { command: 'echo $FROM_TS $(basename "$PWD")' } });
  out.bash = again.content[0].text;
}

if (mode === "http" && out.tools.includes("bash")) {
  // A second session (the bearer scheme in lower case) has a shell of its own.
  const other = new Client({ name: "shellcap-ts-test-2", version: "1.0.0" });
  await other.connect(
    new StreamableHTTPClientTransport(new URL(target), {
      requestInit: { headers: { Authorization: `bearer ${process.env.SHELLCAP_TOKEN ?? ""}` } },
    }),
  );
  const r = await other.callTool({ name: "bash", arguments: { command: "echo ${FROM_TS:-unset}" } });
  out.otherSession = r.content[0].text;
  await other.close();
}

console.log(JSON.stringify(out));
await client.close();
