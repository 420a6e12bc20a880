// A memory too large to build from flip-flops (eda/synth.py): `chtype` gives its $$mem_v2 cell this type, which
// no library maps; OpenSTA makes it a black box. Ports and parameters are those of Yosys' $$mem_v2.
(* blackbox *)
module RTLA_MEM(RD_CLK, RD_EN, RD_ARST, RD_SRST, RD_ADDR, RD_DATA, WR_CLK, WR_EN, WR_ADDR, WR_DATA);
  parameter MEMID = ""; parameter SIZE = 0; parameter OFFSET = 0; parameter ABITS = 0; parameter WIDTH = 0;
  parameter INIT = 0; parameter RD_PORTS = 0; parameter RD_CLK_ENABLE = 0; parameter RD_CLK_POLARITY = 0;
  parameter RD_TRANSPARENCY_MASK = 0; parameter RD_COLLISION_X_MASK = 0; parameter RD_WIDE_CONTINUATION = 0;
  parameter RD_CE_OVER_SRST = 0; parameter RD_ARST_VALUE = 0; parameter RD_SRST_VALUE = 0; parameter RD_INIT_VALUE = 0;
  parameter WR_PORTS = 0; parameter WR_CLK_ENABLE = 0; parameter WR_CLK_POLARITY = 0; parameter WR_PRIORITY_MASK = 0;
  parameter WR_WIDE_CONTINUATION = 0;
  input [RD_PORTS-1:0] RD_CLK, RD_EN, RD_ARST, RD_SRST; input [RD_PORTS*ABITS-1:0] RD_ADDR; output [RD_PORTS*WIDTH-1:0] RD_DATA;
  input [WR_PORTS-1:0] WR_CLK; input [WR_PORTS*WIDTH-1:0] WR_EN; input [WR_PORTS*ABITS-1:0] WR_ADDR; input [WR_PORTS*WIDTH-1:0] WR_DATA;
endmodule
