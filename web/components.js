// The page's pieces, each a preact component written with htm (no JSX step: esbuild only bundles).
import { h } from 'preact';
import { useState } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);

const list = (ids) => ids.join(',');
const dash = (v) => (v === null || v === undefined ? '-' : String(v));

/** A throughput series as an SVG polyline, scaled to its own maximum. */
export function Sparkline({ label, values }) {
  const w = 160, hgt = 28, max = Math.max(1, ...values);
  const points = values.map((v, i) => `${(i * w) / Math.max(1, values.length - 1)},${hgt - (v * hgt) / max}`).join(' ');
  const last = values.length > 0 ? values[values.length - 1] : 0;
  return html`<div class="spark"><span>${label}</span>
    <svg width=${w} height=${hgt}><polyline points=${points} /></svg><b>${last.toFixed(1)}</b></div>`;
}

export function Brokers({ brokers, controller, throughput }) {
  return html`<section><h2>Brokers</h2>
    <table id="brokers"><thead><tr><th>Broker</th><th>Host</th><th>Port</th><th>Rack</th><th>Controller</th><th>BrokerTopicMetrics</th></tr></thead>
    <tbody>${brokers.map((b) => html`<tr key=${b.id} data-broker=${b.id} class=${b.controller ? 'controller' : ''}>
      <td>${b.id}</td><td>${b.host}</td><td>${b.port}</td><td>${dash(b.rack)}</td>
      <td>${b.id === controller ? 'Controller' : ''}</td>
      <td>${throughput[b.id] ? ['MessagesInPerSec', 'BytesInPerSec', 'BytesOutPerSec'].map((n) => html`<${Sparkline} label=${n} values=${throughput[b.id][n]} />`) : '-'}</td>
    </tr>`)}</tbody></table></section>`;
}

export function Topics({ topics }) {
  return html`<section><h2>Topics</h2>
    <table id="topics"><thead><tr><th>Topic</th><th>PartitionCount</th><th>ReplicationFactor</th><th>UnderReplicatedPartitions</th><th>OfflinePartitionsCount</th></tr></thead>
    <tbody>${topics.map((t) => html`<tr key=${t.topic} data-topic=${t.topic} class=${t.offlinePartitions > 0 ? 'offline' : t.underReplicatedPartitions > 0 ? 'under-replicated' : ''}>
      <td>${t.topic}${t.markedForDeletion ? ' (MarkedForDeletion: true)' : ''}</td><td>${t.partitionCount}</td><td>${t.replicationFactor}</td>
      <td>${t.underReplicatedPartitions}</td><td>${t.offlinePartitions}</td></tr>`)}</tbody></table>
    ${topics.map((t) => html`<details key=${t.topic} open=${!t.topic.startsWith("__")}><summary>Topic: ${t.topic}</summary>
      <table class="partitions"><thead><tr><th>Partition</th><th>Leader</th><th>Replicas</th><th>Isr</th><th>LogStartOffset</th><th>LogEndOffset</th><th>Size</th></tr></thead>
      <tbody>${t.partitions.map((p) => html`<tr key=${p.partition} data-tp=${`${t.topic}-${p.partition}`} class=${p.offline ? 'offline' : p.underReplicated ? 'under-replicated' : ''}>
        <td>${p.partition}</td><td class="leader">${p.leader < 0 ? 'none' : p.leader}</td><td class="replicas">${list(p.replicas)}</td><td class="isr">${list(p.isr)}</td>
        <td>${dash(p.logStartOffset)}</td><td>${dash(p.logEndOffset)}</td><td>${dash(p.size)}</td></tr>`)}</tbody></table></details>`)}
  </section>`;
}

function Bytes({ b, hex }) {
  if (b === null) return html`<i>null</i>`;
  return hex || b.text === null ? html`<code>${b.hex}</code>` : b.text;
}

export function MessageBrowser({ topics }) {
  const [form, setForm] = useState({ topic: '', partition: '0', offset: '', hex: false });
  const [messages, setMessages] = useState(null);
  const [error, setError] = useState('');
  const browse = async (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ topic: form.topic, partition: form.partition, offset: form.offset === '' ? '-1' : form.offset, limit: '50' });
    const res = await fetch(`/api/messages?${q}`);
    const body = await res.json();
    if (res.ok) { setMessages(body); setError(''); } else setError(body.error);
  };
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const topic = topics.find((t) => t.topic === form.topic);
  return html`<section><h2>Messages</h2>
    <form onSubmit=${browse} class="inline">
      <label>Topic <select value=${form.topic} onChange=${set('topic')}><option value=""></option>${topics.map((t) => html`<option>${t.topic}</option>`)}</select></label>
      <label>Partition <select value=${form.partition} onChange=${set('partition')}>${(topic?.partitions ?? []).map((p) => html`<option>${p.partition}</option>`)}</select></label>
      <label>Offset <input value=${form.offset} onInput=${set('offset')} placeholder="earliest" size="8" /></label>
      <label><input type="checkbox" checked=${form.hex} onChange=${set('hex')} /> hex</label>
      <button disabled=${form.topic === ''}>Fetch</button> <span class="error">${error}</span></form>
    ${messages && html`<table id="messages"><thead><tr><th>Offset</th><th>Timestamp</th><th>Key</th><th>Value</th><th>Headers</th></tr></thead>
      <tbody>${messages.map((m) => html`<tr key=${m.offset}><td>${m.offset}</td><td>${m.timestampType}:${m.timestamp}</td>
        <td><${Bytes} b=${m.key} hex=${form.hex} /></td><td><${Bytes} b=${m.value} hex=${form.hex} /></td>
        <td>${m.headers.map((hd) => html`<div>${hd.key}: <${Bytes} b=${hd.value} hex=${form.hex} /></div>`)}</td></tr>`)}</tbody></table>`}
  </section>`;
}

export function Groups({ groups, act }) {
  const remove = (g) => window.confirm(`Delete consumer group '${g.group}'?`) && act('/api/groups/delete', { group: g.group, kind: g.kind });
  return html`<section><h2>Consumer groups</h2>
    ${groups.length === 0 && html`<p>No consumer groups.</p>`}
    ${groups.map((g) => html`<div key=${g.group} class="group" data-group=${g.group}>
      <h3>GROUP ${g.group} <small>${g.kind === 'zookeeper' ? 'ZooKeeper consumers (/consumers)' : 'Group coordinator'} · STATE ${g.state} · LAG ${g.totalLag}</small>
        <button class="danger" onClick=${() => remove(g)}>Delete</button></h3>
      <table class="members"><thead><tr><th>CONSUMER-ID</th><th>HOST</th><th>CLIENT-ID</th><th>ASSIGNMENT</th></tr></thead>
        <tbody>${g.members.map((m) => html`<tr key=${m.consumerId}><td>${m.consumerId}</td><td>${m.host}</td><td>${m.clientId}</td><td>${m.assignment.join(', ')}</td></tr>`)}</tbody></table>
      <table class="lag"><thead><tr><th>TOPIC</th><th>PARTITION</th><th>CURRENT-OFFSET</th><th>LOG-END-OFFSET</th><th>LAG</th><th>CONSUMER-ID</th></tr></thead>
        <tbody>${g.partitions.map((p) => html`<tr key=${`${p.topic}-${p.partition}`} data-tp=${`${p.topic}-${p.partition}`}><td>${p.topic}</td><td>${p.partition}</td>
          <td>${dash(p.currentOffset)}</td><td>${dash(p.logEndOffset)}</td><td class="lag-value">${dash(p.lag)}</td><td>${p.consumerId}</td></tr>`)}</tbody></table>
    </div>`)}</section>`;
}

export function Reassignments({ reassignments }) {
  if (reassignments.length === 0) return null;
  return html`<section><h2>Current partition reassignments</h2>
    <table id="reassignments"><thead><tr><th>Topic</th><th>Partition</th><th>Replicas</th><th>AddingReplicas</th><th>RemovingReplicas</th></tr></thead>
    <tbody>${reassignments.map((r) => html`<tr key=${`${r.topic}-${r.partition}`} data-tp=${`${r.topic}-${r.partition}`}><td>${r.topic}</td><td>${r.partition}</td>
      <td>${list(r.replicas)}</td><td>${list(r.addingReplicas)}</td><td>${list(r.removingReplicas)}</td></tr>`)}</tbody></table></section>`;
}

export function CreateTopic({ act }) {
  const [form, setForm] = useState({ topic: '', partitions: '1', replicationFactor: '1' });
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const submit = (e) => {
    e.preventDefault();
    if (window.confirm(`Create topic ${form.topic} with ${form.partitions} partitions and replication factor ${form.replicationFactor}?`)) act('/api/topics', form);
  };
  return html`<section><h2>Create topic</h2><form onSubmit=${submit} class="inline">
    <label>Topic <input value=${form.topic} onInput=${set('topic')} required /></label>
    <label>Partitions <input value=${form.partitions} onInput=${set('partitions')} size="4" /></label>
    <label>Replication factor <input value=${form.replicationFactor} onInput=${set('replicationFactor')} size="4" /></label>
    <button>Create</button></form></section>`;
}
