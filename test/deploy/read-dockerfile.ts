/**
 * The facts a container runtime takes from the Dockerfile, read with
 * dockerfile-ast (the parser behind the Docker language server): the final
 * stage's base, user, environment, health check, entrypoint and command.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { REPO_ROOT } from '../release/packed-workspace.js';

export interface ImageFacts {
  text: string;
  bases: string[];
  /** The final stage's instructions only. */
  final: Instruction[];
  env: Record<string, string>;
  user: string | undefined;
  expose: string[];
  healthcheck: string[];
  entrypoint: string[];
  cmd: string[];
  runs: string[];
}

function execForm(instruction: Instruction | undefined): string[] {
  const content = instruction?.getArgumentsContent();
  if (content === undefined || content === null) return [];
  return JSON.parse(content) as string[];
}

export function readDockerfile(path = join(REPO_ROOT, 'Dockerfile')): ImageFacts {
  const text = readFileSync(path, 'utf8');
  const dockerfile = DockerfileParser.parse(text);
  const instructions = dockerfile.getInstructions();
  const lastFrom = instructions.map((instruction) => instruction.getKeyword()).lastIndexOf('FROM');
  const final = instructions.slice(lastFrom);
  const of = (keyword: string): Instruction[] => final.filter((instruction) => instruction.getKeyword() === keyword);
  const env: Record<string, string> = {};
  for (const instruction of of('ENV')) {
    for (const property of (instruction as unknown as { getProperties(): Array<{ getName(): string; getValue(): string | null }> }).getProperties()) {
      env[property.getName()] = property.getValue() ?? '';
    }
  }
  const healthcheck = of('HEALTHCHECK').at(-1);
  const healthArguments = healthcheck?.getArgumentsContent() ?? '';
  const commandAt = healthArguments.indexOf('CMD ');
  return {
    text,
    bases: dockerfile.getFROMs().map((from) => `${from.getImageName() ?? ''}:${from.getImageTag() ?? ''}`),
    final,
    env,
    user: of('USER').at(-1)?.getArgumentsContent() ?? undefined,
    expose: of('EXPOSE').map((instruction) => instruction.getArgumentsContent() ?? ''),
    healthcheck: commandAt === -1 ? [] : (JSON.parse(healthArguments.slice(commandAt + 4)) as string[]),
    entrypoint: execForm(of('ENTRYPOINT').at(-1)),
    cmd: execForm(of('CMD').at(-1)),
    runs: of('RUN').map((instruction) => instruction.getArgumentsContent() ?? ''),
  };
}
