#!/usr/bin/env bash
# The README's first command: set everything up, start ZooKeeper (config/zookeeper.properties) in the
# background and one broker (config/server.properties) in the foreground. Ctrl-C stops the broker; ZooKeeper
# keeps running until bin/zookeeper-server-stop.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh zookeeper

zk_port=$(sed -n 's/^clientPort=//p' config/zookeeper.properties | tr -d '[:space:]')
zk_up() { (exec 3<>"/dev/tcp/127.0.0.1/${zk_port:-2181}" && echo ruok >&3 && grep -q imok <&3) 2>/dev/null; }
if ! zk_up; then
  ./bin/zookeeper-server-start.ts -daemon config/zookeeper.properties
  for _ in $(seq 1 100); do zk_up && break; sleep 0.2; done
  zk_up || { echo "ZooKeeper did not come up on port ${zk_port:-2181}; see logs/zookeeper.out" >&2; exit 1; }
fi
echo "ZooKeeper is up on localhost:${zk_port:-2181}; starting the broker (logs in logs/)."
exec ./bin/kafka-server-start.ts config/server.properties "$@"
