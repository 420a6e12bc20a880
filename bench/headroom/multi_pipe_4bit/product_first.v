// kind: retime
// change: the four partial products are summed in stage 1 into one 8-bit product register (16 flops instead of 20, the second add of the reference moved before the first register); Yosys does not retime across registers.
module multi_pipe_4bit#(
	parameter size = 4
)(
	input 						clk 		,
	input 						rst_n		,
	input	[size-1:0]			mul_a		,
	input	[size-1:0]			mul_b		,
 	output	reg	[size*2-1:0]	mul_out
);
reg [7:0] p1;
wire [7:0] m0 = mul_b[0] ? {4'd0, mul_a} : 8'd0;
wire [7:0] m1 = mul_b[1] ? {3'd0, mul_a, 1'b0} : 8'd0;
wire [7:0] m2 = mul_b[2] ? {2'd0, mul_a, 2'b0} : 8'd0;
wire [7:0] m3 = mul_b[3] ? {1'd0, mul_a, 3'b0} : 8'd0;
always @(posedge clk or negedge rst_n)
    if (!rst_n) begin p1 <= 8'd0; mul_out <= 8'd0; end
    else begin p1 <= (m0 + m1) + (m2 + m3); mul_out <= p1; end
endmodule
