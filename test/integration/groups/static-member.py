"""A confluent-kafka (librdkafka) group member with a group.instance.id (KIP-345 static membership).

Prints "ASSIGNED <partitions>" on every assignment and "REVOKED" on every revocation, then consumes until killed.
Usage: static-member.py <bootstrap> <group> <topic> <group.instance.id>
"""
import sys
from confluent_kafka import Consumer

bootstrap, group, topic, instance = sys.argv[1:5]
c = Consumer({
    'bootstrap.servers': bootstrap,
    'group.id': group,
    'group.instance.id': instance,
    'client.id': 'static-' + instance,
    'session.timeout.ms': 10000,
    'auto.offset.reset': 'earliest',
})


def on_assign(consumer, partitions):
    print('ASSIGNED ' + ','.join(str(p.partition) for p in sorted(partitions, key=lambda p: p.partition)), flush=True)


def on_revoke(consumer, partitions):
    print('REVOKED', flush=True)


c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
while True:
    c.poll(0.2)
