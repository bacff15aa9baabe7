export const CHROMIUM: string;
export function planChromium(facts: { env: Record<string, string | undefined>; hasChromium: boolean; isRoot: boolean; hasApt: boolean }): {
  action: 'skip' | 'present' | 'install' | 'cannot';
  message: string | undefined;
};
