// kind: encoding
// change: binary 3-bit state encoding with S4 the only state having bit 2 set, so the output is a flop bit and two flops are saved against one-hot; fsm_encoding=none keeps Yosys from re-encoding it, and the redundant rst_n gating of next_state goes.
module sequence_detector(
     input  clk,
     input  rst_n,
     input  data_in,
     output sequence_detected
     );
(* fsm_encoding = "none" *) reg [2:0] st;
reg [2:0] nx;
always @(posedge clk or negedge rst_n)
    if (!rst_n) st <= 3'd0; else st <= nx;
always @(*) case (st)
    3'd0: nx = data_in ? 3'd1 : 3'd0;
    3'd1: nx = data_in ? 3'd1 : 3'd2;
    3'd2: nx = data_in ? 3'd1 : 3'd3;
    3'd3: nx = data_in ? 3'd4 : 3'd0;
    3'd4: nx = data_in ? 3'd1 : 3'd2;
    default: nx = 3'bxxx;
endcase
assign sequence_detected = st[2];
endmodule
