import { describe, expect, it, vi } from 'vitest';
import { TurnError } from '../errors/turn-error.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import { executeTool, type ToolErrorReport } from './execute-tool.js';
import { OUTPUT_TRUNCATED_HINT, TRUNCATED_ARGUMENTS_WARNING } from './parse-tool-input.js';
import { TelemetrySafeError } from './telemetry-safe-error.js';
import type { ToolHandler } from './tool-handler.js';

function toolCall(toolName: string, input: string): ToolCallPart {
  return { type: 'tool-call', toolCallId: 'toolu_1', toolName, input };
}

function run(call: ToolCallPart, tools: Record<string, ToolHandler>, extra: { responseTruncated?: boolean; signal?: AbortSignal } = {}) {
  const reports: ToolErrorReport[] = [];
  const promise = executeTool({
    toolCall: call,
    tools,
    signal: extra.signal ?? new AbortController().signal,
    responseTruncated: extra.responseTruncated ?? false,
    onToolError: (report) => reports.push(report),
  });
  return { promise, reports };
}

describe('executeTool (R3.12–R3.14)', () => {
  it('runs the handler with the parsed input and returns its output', async () => {
    const read = vi.fn<ToolHandler>(async (input) => `read ${(input as { path: string }).path}`);
    const { promise, reports } = run(toolCall('read', '{"path":"a.ts"}'), { read });
    expect(await promise).toEqual({ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'read', output: 'read a.ts' });
    expect(read).toHaveBeenCalledWith({ path: 'a.ts' }, { signal: expect.any(AbortSignal), toolCallId: 'toolu_1' });
    expect(reports).toEqual([]);
  });

  it('R3.12: a throwing tool yields an is-error result and a content-free classification', async () => {
    const read: ToolHandler = async () => {
      throw Object.assign(new Error("ENOENT: no such file or directory, open '/home/alice/diary.txt'"), { code: 'ENOENT' });
    };
    const { promise, reports } = run(toolCall('read', '{}'), { read });
    expect(await promise).toEqual({
      type: 'tool-result',
      toolCallId: 'toolu_1',
      toolName: 'read',
      output: "Error: ENOENT: no such file or directory, open '/home/alice/diary.txt'",
      isError: true,
    });
    expect(reports).toEqual([
      { toolCallId: 'toolu_1', toolName: 'read', reason: 'tool-threw', classification: 'ENOENT', inputRecovered: false },
    ]);
    expect(JSON.stringify(reports)).not.toContain('diary');
  });

  it('R3.12: a handler that throws synchronously is handled the same way', async () => {
    const broken = (() => {
      throw new TelemetrySafeError('bad input /secret', 'validation failed');
    }) as unknown as ToolHandler;
    const { promise, reports } = run(toolCall('broken', '{}'), { broken });
    expect(await promise).toMatchObject({ isError: true, output: 'TelemetrySafeError: bad input /secret' });
    expect(reports[0]?.classification).toBe('validation failed');
  });

  it('R3.12: an unknown tool (also a prototype name) is an error result, without the name in telemetry', async () => {
    for (const name of ['delete_everything', 'toString', '__proto__']) {
      const { promise, reports } = run(toolCall(name, '{}'), {});
      expect(await promise).toMatchObject({ isError: true, output: `Error: No such tool available: ${name}` });
      expect(reports).toEqual([
        { toolCallId: 'toolu_1', toolName: undefined, reason: 'unknown-tool', classification: 'unknown_tool', inputRecovered: false },
      ]);
    }
  });

  it('R3.13: unparseable arguments of a truncated response do not run the tool and carry the hint', async () => {
    const write = vi.fn<ToolHandler>(async () => 'written');
    const { promise, reports } = run(toolCall('write', '{"lines":["one","tw'), { write }, { responseTruncated: true });
    const result = await promise;
    expect(result.isError).toBe(true);
    expect(result.output).toContain(OUTPUT_TRUNCATED_HINT);
    expect(write).not.toHaveBeenCalled();
    expect(reports[0]).toMatchObject({ reason: 'invalid-input', classification: 'invalid_tool_input' });
  });

  it('R3.14: recovered arguments run the tool and the result carries the truncation warning', async () => {
    const write = vi.fn<ToolHandler>(async () => 'wrote 1 file');
    const { promise } = run(toolCall('write', '{"path":"a.ts","content":"const a'), { write }, { responseTruncated: true });
    expect(await promise).toEqual({
      type: 'tool-result',
      toolCallId: 'toolu_1',
      toolName: 'write',
      output: `wrote 1 file\n\n${TRUNCATED_ARGUMENTS_WARNING}`,
    });
    expect(write.mock.calls[0]?.[0]).toEqual({ path: 'a.ts', content: 'const a' });
  });

  it('R3.14: the warning is appended as a text part to part outputs and to error results', async () => {
    const parts: ToolHandler = async () => [{ type: 'text', text: 'done' }];
    const failing: ToolHandler = async () => {
      throw new Error('disk full');
    };
    const partsResult = await run(toolCall('parts', '{"a":"x'), { parts }).promise;
    expect(partsResult.output).toEqual([
      { type: 'text', text: 'done' },
      { type: 'text', text: TRUNCATED_ARGUMENTS_WARNING },
    ]);
    const { promise, reports } = run(toolCall('failing', '{"a":"x'), { failing });
    expect(await promise).toMatchObject({ isError: true, output: `Error: disk full\n\n${TRUNCATED_ARGUMENTS_WARNING}` });
    expect(reports[0]?.inputRecovered).toBe(true);
  });

  it('turns an output of the wrong shape into an error result', async () => {
    const odd = (async () => ({ not: 'text' })) as unknown as ToolHandler;
    const { promise, reports } = run(toolCall('odd', '{}'), { odd });
    expect(await promise).toMatchObject({ isError: true });
    expect(reports[0]).toMatchObject({ reason: 'invalid-output', classification: 'invalid_tool_output' });
  });

  it('a throwing telemetry callback does not break execution', async () => {
    const result = await executeTool({
      toolCall: toolCall('missing', '{}'),
      tools: {},
      signal: new AbortController().signal,
      responseTruncated: false,
      onToolError: () => {
        throw new Error('telemetry down');
      },
    });
    expect(result.isError).toBe(true);
  });

  describe('abort (R3.10)', () => {
    it('rejects with ABORTED and does not start the tool when already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const tool = vi.fn<ToolHandler>(async () => 'ran');
      const rejection = await run(toolCall('tool', '{}'), { tool }, { signal: controller.signal }).promise.catch((e: unknown) => e);
      expect(TurnError.isInstance(rejection) && [rejection.kind, rejection.code]).toEqual(['aborted', 'ABORTED']);
      expect(tool).not.toHaveBeenCalled();
    });

    it('rejects at once when aborted during a tool that ignores the signal', async () => {
      const controller = new AbortController();
      let started!: () => void;
      const startedPromise = new Promise<void>((resolve) => (started = resolve));
      const hanging: ToolHandler = () => {
        started();
        return new Promise(() => {});
      };
      const { promise, reports } = run(toolCall('hanging', '{}'), { hanging }, { signal: controller.signal });
      await startedPromise;
      controller.abort(new Error('user pressed esc'));
      const rejection = await promise.catch((e: unknown) => e);
      expect(TurnError.isInstance(rejection) && rejection.kind).toBe('aborted');
      expect(TurnError.isInstance(rejection) && rejection.details).toEqual({ phase: 'tools', toolCallId: 'toolu_1' });
      expect(reports).toEqual([]);
    });

    it('treats a tool that rejects because of the abort as aborted, not as a tool error', async () => {
      const controller = new AbortController();
      const polite: ToolHandler = (_input, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))));
      const { promise, reports } = run(toolCall('polite', '{}'), { polite }, { signal: controller.signal });
      controller.abort();
      await expect(promise).rejects.toMatchObject({ kind: 'aborted', code: 'ABORTED' });
      expect(reports).toEqual([]);
    });
  });
});
