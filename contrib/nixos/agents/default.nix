# The llwrap-agent CLI (see llwrap-agent's header), with llwrap and
# opencode fixed to the store paths the module chose.
{
  lib,
  runCommand,
  bash,
  coreutils,
  gnused,
  systemd,
  llwrap,
  opencode,
}:

runCommand "llwrap-agent"
  {
    meta = {
      description = "Spawn, list, stop and destroy llwrap-sandboxed opencode agents";
      mainProgram = "llwrap-agent";
      platforms = lib.platforms.linux;
    };
  }
  ''
    install -D -m 0755 ${./llwrap-agent} $out/bin/llwrap-agent
    substituteInPlace $out/bin/llwrap-agent \
      --replace-fail '#!/usr/bin/env bash' '#!${bash}/bin/bash' \
      --replace-fail '@llwrap@' '${llwrap}' \
      --replace-fail '@opencode@' '${opencode}' \
      --replace-fail 'SYSTEMCTL=''${LLWRAP_AGENT_SYSTEMCTL:-systemctl}' 'SYSTEMCTL=''${LLWRAP_AGENT_SYSTEMCTL:-${systemd}/bin/systemctl}'
    sed -i '2a PATH=${coreutils}/bin:${gnused}/bin:$PATH' $out/bin/llwrap-agent
  ''
