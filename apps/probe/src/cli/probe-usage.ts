import { MOCK_TIMING } from '../probe-types.js';
import { PROBE_SCENARIOS } from '../scenarios/scenario-catalog.js';

function listScenarios(): string {
  const width = Math.max(...PROBE_SCENARIOS.map((scenario) => scenario.name.length));
  return PROBE_SCENARIOS.map((scenario) => {
    const where = scenario.runsOnRealUpstream ? 'mock, real' : 'mock only';
    return `  ${scenario.name.padEnd(width)}  ${scenario.summary} [${where}]`;
  }).join('\n');
}

export function formatProbeUsage(): string {
  return `Usage: turnguard-probe [--all | --scenario <name>] [--protocol chat|messages|responses] [options]
       turnguard-probe --base-url <url> --model <name> --protocol <p> [--api-key-env <VAR>] [options]

Runs turnguard's failure scenarios through the real retry (R1), recovery (R4)
and agent-loop (R3) code and shows what happened, live.

By default the target is the embedded mock upstream (a loopback server started
in-process), where every failure is injected on purpose. Its waits are
shortened so a full run takes seconds: server-directed waits (retry-after-ms)
of ${MOCK_TIMING.serverWaitMs} ms and a backoff starting at ${MOCK_TIMING.backoffInitialMs} ms instead of the real
defaults (the server's retry-after as sent, backoff from 500 ms up to 32 s).

Scenarios:
${listScenarios()}

Target (default: the embedded mock):
  --all                 every scenario on every protocol (mock only)
  --scenario <name>     one scenario (default: long-think-cut)
  --protocol <p>        chat, messages or responses (mock default: all three)
  --base-url <url>      a real upstream instead of the mock: the same base URL the
                        official SDK takes (e.g. https://api.openai.com/v1 or
                        https://api.anthropic.com). Only scenarios marked "real"
                        make sense there: a real provider cannot be told to fail,
                        so the probe sends a plain long-think turn and reports
                        whether it needed retries or a recovery.
  --model <name>        model to ask (required with --base-url)
  --api-key-env <VAR>   environment variable holding the key (default:
                        OPENAI_API_KEY, or ANTHROPIC_API_KEY for messages);
                        the key is sent upstream only, never printed or stored

Output:
  --out <dir>           where <timestamp>-result.json and <timestamp>-trace.jsonl
                        go (default: ./turnguard-probe-results); they hold timings,
                        segment outcomes and stats samples, never content text
  --stats-file <path>   stats.json to record every request and turn in (default:
                        $TURNGUARD_STATS_FILE, else ~/.turnguard/stats.json for a
                        real upstream and ~/.turnguard/mock-stats.json for the mock)
  --no-stats            do not record to stats.json
  -h, --help            this help
  -v, --version         print the version

Exit code: 0 when every run behaved as its scenario expects, 1 when one did
not, 2 for bad arguments.
`;
}
