#!/bin/sh
# Turns KAFKA_* environment variables into --override arguments, as the usual Kafka images do:
# KAFKA_BROKER_ID=1 -> --override broker.id=1; KAFKA_ZOOKEEPER_CONNECT -> zookeeper.connect.
set -eu
set -- config/server.properties --override log.dirs=/var/lib/kafka "$@"
for var in $(env | sed -n 's/^\(KAFKA_[A-Z0-9_]*\)=.*/\1/p'); do
  case "$var" in KAFKA_HEAP_OPTS|KAFKA_OPTS|KAFKA_LOG4J_OPTS) continue ;; esac
  key=$(echo "${var#KAFKA_}" | tr 'A-Z_' 'a-z.')
  eval "value=\${$var}"
  set -- "$@" --override "$key=$value"
done
exec ./bin/kafka-server-start.ts "$@"
