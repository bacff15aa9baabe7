import type { Message, Prompt, SystemMessage, TurnSettings } from '@turnguard/core';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { convertToResponsesInput } from './convert-to-responses-input.js';
import type { JsonObject } from './native-json.js';
import { prepareResponsesToolChoice, prepareResponsesTools } from './prepare-responses-tools.js';
import { readResponsesShape } from './responses-shape.js';

/**
 * Neutral prompt + settings → a Responses request body (R7.1).
 *
 * System messages: one parsed from top-level `instructions` goes back there,
 * one parsed from an `input` item goes back there ("keep whichever the request
 * used"). A neutral system message with no such record goes to `instructions`
 * when it leads the conversation, else into `input` as a `system` item.
 * Unknown top-level fields in `settings.providerFields` are spread first, so
 * modelled fields win when both are present.
 */
export function convertToResponsesRequest(prompt: Prompt, settings: TurnSettings): ResponseCreateParams {
  const { instructions, inputMessages } = splitInstructions(prompt.messages);
  const input = buildInput(inputMessages);
  const request: JsonObject = {
    ...settings.providerFields,
    ...(settings.model !== '' ? { model: settings.model } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(input !== undefined ? { input } : {}),
    ...(settings.tools !== undefined ? { tools: prepareResponsesTools(settings.tools) } : {}),
    ...(settings.toolChoice !== undefined ? { tool_choice: prepareResponsesToolChoice(settings.toolChoice) } : {}),
    ...(settings.maxOutputTokens !== undefined ? { max_output_tokens: settings.maxOutputTokens } : {}),
    ...(settings.stream ? { stream: true } : {}),
  };
  return request as unknown as ResponseCreateParams;
}

function splitInstructions(messages: Message[]): { instructions: string | undefined; inputMessages: Message[] } {
  const instructionTexts: string[] = [];
  const inputMessages: Message[] = [];
  let leading = true;
  for (const message of messages) {
    if (message.role !== 'system') leading = false;
    if (message.role === 'system' && goesToInstructions(message, leading)) {
      instructionTexts.push(message.content.map((part) => part.text).join(''));
    } else {
      inputMessages.push(message);
    }
  }
  return { instructions: instructionTexts.length > 0 ? instructionTexts.join('\n\n') : undefined, inputMessages };
}

function goesToInstructions(message: SystemMessage, leading: boolean): boolean {
  const placement = readResponsesShape(message.providerFields).placement;
  return placement === 'instructions' || (placement === undefined && leading);
}

function buildInput(messages: Message[]): string | JsonObject[] | undefined {
  const [onlyMessage] = messages;
  if (messages.length === 1 && onlyMessage?.role === 'user' && readResponsesShape(onlyMessage.providerFields).inputAsString) {
    const [onlyPart] = onlyMessage.content;
    if (onlyMessage.content.length === 1 && onlyPart?.type === 'text') return onlyPart.text;
  }
  const items = convertToResponsesInput(messages);
  return items.length > 0 ? items : undefined;
}
