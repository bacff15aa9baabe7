/**
 * R12.1, R12.5: deploy/otel-collector.yaml read as the collector would read
 * it (no collector binary runs here): every pipeline names components that
 * are configured, the OTLP/HTTP receiver listens where the replicas of
 * deploy/compose.yaml export, and Prometheus scrapes the port its
 * Prometheus exporter serves.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOY_DIR, readYaml } from './compose-file.js';

type Pipelines = Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }>;

const collector = readYaml(join(DEPLOY_DIR, 'otel-collector.yaml'));
const compose = readYaml(join(DEPLOY_DIR, 'compose.yaml'));
const services = compose.services as Record<string, Record<string, unknown>>;
const pipelines = (collector.service as { pipelines: Pipelines }).pipelines;

describe('deploy/otel-collector.yaml', () => {
  it('has a traces and a metrics pipeline, each naming only configured components', () => {
    expect(Object.keys(pipelines).sort()).toEqual(['metrics', 'traces']);
    for (const [name, pipeline] of Object.entries(pipelines)) {
      for (const kind of ['receivers', 'processors', 'exporters'] as const) {
        const configured = Object.keys((collector[kind] as Record<string, unknown> | undefined) ?? {});
        for (const component of pipeline[kind] ?? []) expect(configured, `${name}.${kind}: ${component}`).toContain(component);
      }
      expect(pipeline.receivers).toEqual(['otlp']);
    }
  });

  it('receives OTLP/HTTP where every replica exports, and the replicas name themselves', () => {
    const http = (collector.receivers as { otlp: { protocols: { http: { endpoint: string } } } }).otlp.protocols.http;
    const port = http.endpoint.split(':').at(-1);
    const replicas = Object.entries(services).filter(([, service]) => service.build !== undefined);
    expect(replicas.length).toBeGreaterThanOrEqual(2);
    for (const [, service] of replicas) {
      const env = service.environment as Record<string, string>;
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://otel-collector:${port}`);
      expect(env.OTEL_SERVICE_NAME).toBe('turnguard-gateway');
      // The gateway sends OTLP/HTTP (protobuf by default); nothing asks it for gRPC.
      expect(env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').toMatch(/^http\//);
    }
  });

  it('the collector service mounts this file where its --config points; its exporters reach services of the compose file', () => {
    const service = services['otel-collector']!;
    const config = (service.command as string[]).find((argument) => argument.startsWith('--config='))!.slice('--config='.length);
    expect(service.volumes).toContain(`./otel-collector.yaml:${config}:ro`);
    const exporters = collector.exporters as Record<string, { endpoint: string }>;
    expect(Object.keys(services)).toContain(exporters['otlp/jaeger']!.endpoint.split(':')[0]);
    const prometheus = readYaml(join(DEPLOY_DIR, 'prometheus.yml'));
    const job = (prometheus.scrape_configs as Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>).find((entry) => entry.job_name === 'otel-collector');
    expect(job?.static_configs[0]!.targets).toEqual([`otel-collector:${exporters.prometheus!.endpoint.split(':').at(-1)}`]);
  });
});
