import type { Message } from './message.js';

/** What the model is asked: the conversation, system messages included. */
export interface Prompt {
  messages: Message[];
}
