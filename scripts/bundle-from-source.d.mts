export function bundleFromSource(options: { entryName: string; entryFile: string; outDir: string; sourceRoot: string }): Promise<string>;
