// The live cluster page: polls /api/cluster every second and re-renders; writes only through confirmed actions.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Brokers, CreateTopic, Groups, html, MessageBrowser, Reassignments, Topics } from './components.js';

const POLL_MS = 1000;

function App() {
  const [cluster, setCluster] = useState(null);
  const [status, setStatus] = useState('');
  const [notice, setNotice] = useState(null);
  useEffect(() => {
    let live = true;
    const poll = async () => {
      try {
        const res = await fetch('/api/cluster');
        if (res.ok) { setCluster(await res.json()); setStatus(''); } else setStatus((await res.json()).error);
      } catch (err) {
        setStatus(`kafka-ui is not answering (${err.message})`);
      }
      if (live) setTimeout(poll, POLL_MS);
    };
    poll();
    return () => { live = false; };
  }, []);
  const act = async (path, body) => {
    const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await res.json();
    setNotice({ ok: res.ok, message: answer.message ?? answer.error });
  };
  if (cluster === null) return html`<p>Reading the cluster... ${status}</p>`;
  return html`<header><h1>kafka-ts cluster</h1>
      <span>Controller: <b id="controller">${cluster.controller ?? 'none'}</b></span>
      <span>Brokers: ${cluster.brokers.length}</span><span>Topics: ${cluster.topics.length}</span>
      <span class="updated">Updated ${new Date(cluster.updatedAt).toLocaleTimeString()}</span> <span class="error">${status}</span></header>
    ${notice && html`<pre class=${notice.ok ? 'notice' : 'notice error'} onClick=${() => setNotice(null)}>${notice.message}</pre>`}
    <main>
      <${Brokers} brokers=${cluster.brokers} controller=${cluster.controller} throughput=${cluster.throughput} />
      <${Reassignments} reassignments=${cluster.reassignments} />
      <${Topics} topics=${cluster.topics} />
      <${Groups} groups=${cluster.groups} act=${act} />
      <${MessageBrowser} topics=${cluster.topics} />
      <${CreateTopic} act=${act} />
    </main>`;
}

render(html`<${App} />`, document.getElementById('app'));
