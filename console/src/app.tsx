import { useEffect } from 'preact/hooks';
import { useAsync, useRoute } from './hooks.js';
import { metricsAvailable } from './metrics.js';
import { DEFAULT_QUERY, hrefOf, type Route } from './routes.js';
import { DomainsView } from './views/domains.js';
import { ExecutionView } from './views/execution.js';
import { ExecutionsView } from './views/executions.js';
import { MetricsView } from './views/metrics.js';
import { StartView } from './views/start.js';
import { TypesView } from './views/types.js';

/** The console: a header with where you are, and the view the URL names. */
export function App() {
  const route = useRoute();
  // The charts' link is shown only where the endpoint answers GET /metrics.
  const metrics = useAsync((signal) => metricsAvailable(signal), []);
  useEffect(() => {
    document.title = `${titleOf(route)} · SWF console`;
  }, [route]);
  return (
    <>
      <button type="button" class="skip" onClick={skipToMain}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href={hrefOf({ view: 'domains', status: 'REGISTERED' })}>
          SWF console
        </a>
        <Breadcrumbs route={route} />
        {metrics.value === true ? (
          <a
            class="top-link"
            href={hrefOf(
              'domain' in route && route.domain !== undefined
                ? { view: 'metrics', domain: route.domain }
                : { view: 'metrics' },
            )}
          >
            Metrics
          </a>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        <View route={route} metrics={metrics.value === true} />
      </main>
    </>
  );
}

function skipToMain() {
  document.getElementById('main')?.focus();
}

function View(props: { route: Route; metrics: boolean }) {
  const { route } = props;
  switch (route.view) {
    case 'domains':
      return <DomainsView status={route.status} />;
    case 'executions':
      return <ExecutionsView key={hrefOf(route)} domain={route.domain} query={route.query} />;
    case 'types':
      return <TypesView domain={route.domain} status={route.status} />;
    case 'execution':
      return (
        <ExecutionView
          key={`${route.domain}/${route.execution.workflowId}/${route.execution.runId}`}
          domain={route.domain}
          execution={route.execution}
          tab={route.tab}
          {...(route.event === undefined ? {} : { event: route.event })}
        />
      );
    case 'start':
      return <StartView key={hrefOf(route)} route={route} />;
    case 'metrics':
      return <MetricsView {...(route.domain === undefined ? {} : { domain: route.domain })} />;
    case 'notFound':
      return (
        <section>
          <h1>Not found</h1>
          <p>
            No view at <code>{route.path}</code>. <a href="#/domains">See the domains</a>.
          </p>
        </section>
      );
  }
}

function Breadcrumbs(props: { route: Route }) {
  const { route } = props;
  const crumbs: [string, string][] = [
    ['Domains', hrefOf({ view: 'domains', status: 'REGISTERED' })],
  ];
  if ('domain' in route && route.domain !== undefined) {
    crumbs.push([
      route.domain,
      hrefOf({ view: 'executions', domain: route.domain, query: DEFAULT_QUERY }),
    ]);
    if (route.view === 'execution')
      crumbs.push([route.execution.workflowId, hrefOf({ ...route, tab: 'summary' })]);
    if (route.view === 'types') crumbs.push(['Types', hrefOf(route)]);
    if (route.view === 'start') crumbs.push(['Start', hrefOf(route)]);
  }
  return (
    <nav class="crumbs" aria-label="Where you are">
      <ol>
        {crumbs.map(([label, href], index) => (
          <li key={href}>
            <a href={href} aria-current={index === crumbs.length - 1 ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function titleOf(route: Route): string {
  switch (route.view) {
    case 'domains':
      return 'Domains';
    case 'executions':
      return `${route.domain}: executions`;
    case 'types':
      return `${route.domain}: types`;
    case 'execution':
      return `${route.execution.workflowId} (${route.tab})`;
    case 'start':
      return `${route.domain}: start an execution`;
    case 'metrics':
      return 'Metrics';
    case 'notFound':
      return 'Not found';
  }
}
