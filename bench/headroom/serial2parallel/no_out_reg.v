// kind: idle
// change: dout_parallel drives straight from the shift register, which holds still in the cycle dout_valid is high (no shift at cnt == 8), so the 8-bit output register is dropped; synthesis cannot use the rule that dout_parallel is only observed while dout_valid is high.
module serial2parallel(
	input clk,
	input rst_n,
	input din_serial,
	input din_valid,
	output [7:0]dout_parallel,
	output reg dout_valid
);

	reg[7:0]din_tmp;
	reg[3:0]cnt;

	always@(posedge clk or negedge rst_n)begin
		if(!rst_n)
			cnt <= 0;
		else if(din_valid)
			cnt <= (cnt == 4'd8)?0:cnt+1'b1;
		else
			cnt <= 0;
	end

	always@(posedge clk or negedge rst_n)begin
		if(!rst_n)
			din_tmp <= 8'b0;
		else if(din_valid && !cnt[3])
			din_tmp <= {din_tmp[6:0],din_serial};
	end

	always@(posedge clk or negedge rst_n)begin
		if(!rst_n)
			dout_valid <= 1'b0;
		else
			dout_valid <= cnt[3];
	end

	assign dout_parallel = din_tmp;

endmodule
