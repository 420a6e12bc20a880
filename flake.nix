{
  description = "rtl-agent: hardware-design agent that learns from EDA feedback (dev shell)";
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";
  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAll = f: nixpkgs.lib.genAttrs systems (s: f nixpkgs.legacyPackages.${s});
    in {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          # the same tools scripts/setup.sh installs on Debian; Python deps (Yosys too: the pyosys wheel) come from requirements.txt
          packages = with pkgs; [ python311 iverilog verilator opensta openroad gcc gnumake perl bubblewrap util-linux ];
          shellHook = ''
            [ -d .venv ] || python -m venv .venv
            source .venv/bin/activate
          '';
        };
      });
    };
}
