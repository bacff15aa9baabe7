// What the client received, without content: the status, and for an SSE answer the
// sequence of records as `type[index kind]`, repeats collapsed (`×N`). This is the
// evidence for R8.7 (block starts, stops and indices in order).

function label(record) {
  const data = record.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
  if (!data) return null;
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    return data === '[DONE]' ? '[DONE]' : '<non-JSON data>';
  }
  if (event.object === 'chat.completion.chunk') return chatLabel(event);
  if (event.type === undefined && event.error !== undefined) return 'error';
  const index = event.index ?? event.output_index;
  const kind = event.content_block?.type ?? event.item?.type ?? event.delta?.type;
  const detail = [index, typeof kind === 'string' ? kind : undefined].filter((part) => part !== undefined).join(' ');
  return `${event.type ?? '?'}${detail ? `[${detail}]` : ''}`;
}

/** A Chat chunk by what its first choice carries: `chunk[content]`, `chunk[reasoning]`, `chunk[tool]`, `chunk[finish stop]`, `chunk[usage]`. */
function chatLabel(event) {
  const choice = event.choices?.[0];
  if (choice === undefined) return event.usage ? 'chunk[usage]' : 'chunk[]';
  if (choice.finish_reason) return `chunk[finish ${choice.finish_reason}]`;
  const delta = choice.delta ?? {};
  const kinds = ['role', 'content', 'reasoning_content', 'tool_calls'].filter((key) => delta[key] !== undefined && delta[key] !== '' && delta[key] !== null);
  return `chunk[${kinds.map((kind) => kind.replace('_content', '').replace('tool_calls', 'tool')).join(' ')}]`;
}

/** Collects labels from an SSE byte stream as it passes through the tap. */
export function frameSniffer() {
  let pending = '';
  const labels = [];
  return {
    labels,
    push(chunk) {
      pending += chunk.toString('utf8').replace(/\r\n/g, '\n');
      const records = pending.split('\n\n');
      pending = records.pop() ?? '';
      for (const record of records) {
        const name = label(record);
        if (name) labels.push(name);
      }
    },
  };
}

/** `a, b×3, c` from a list of labels. */
export function collapse(labels) {
  const out = [];
  for (const name of labels) {
    const last = out.at(-1);
    if (last && last.name === name) last.count += 1;
    else out.push({ name, count: 1 });
  }
  return out.map(({ name, count }) => (count > 1 ? `${name}×${count}` : name)).join(', ');
}
