#!/bin/bash
# usage: mkwt.sh NAME [BASE]
set -e
name=$1; base=${2:-main}
cd /work/main
git worktree add /work/wt-$name -b $name $base
mkdir -p /work/wt-$name/node_modules
for e in /work/main/node_modules/* /work/main/node_modules/.bin /work/main/node_modules/.package-lock.json; do
  b=$(basename $e)
  [ "$b" = "@wallet" ] && continue
  ln -s $e /work/wt-$name/node_modules/$b
done
cp -a /work/main/node_modules/@wallet /work/wt-$name/node_modules/@wallet
