export interface DemoStep {
  title?: string;
  command: string;
  args: string[];
}
export const DEMO_STEPS: DemoStep[];
export const DEMO_RUN: DemoStep;
export function runDemo(io: {
  run(step: DemoStep, options: { quiet: boolean }): { status: number | null; output: string };
  write(text: string): void;
}): number;
