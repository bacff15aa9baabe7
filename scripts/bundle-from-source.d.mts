export function bundleFromSource(options: { entryName: string; entryFile: string; outDir: string; sourceRoot: string; keepUnusedImports?: boolean }): Promise<string>;
