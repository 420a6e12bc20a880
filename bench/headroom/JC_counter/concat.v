// kind: other
// change: no headroom found: the design is 64 reset flops and one inverter (Q <= {~Q[0], Q[63:1]}), already what the reference synthesizes to; a counter+decoder would cut flops but add 64 decoders and several gate delays.
module JC_counter(
   input                clk ,
   input                rst_n,
   output reg [63:0]     Q
);
    always @(posedge clk or negedge rst_n)
        if (!rst_n) Q <= 64'd0;
        else Q <= {~Q[0], Q[63:1]};
endmodule
