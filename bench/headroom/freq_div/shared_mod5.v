// kind: share
// change: cnt_100 (7 bits, 0..49) becomes a 4-bit mod-10 counter stepped by the mod-5 counter's wrap (cnt_100 = 5*hi + cnt_10) and cnt_10 becomes 3 bits, since synthesis neither narrows counters to their reachable range nor sees that the two counters share a factor.
module freq_div (CLK_in,CLK_50,CLK_10,CLK_1,RST);
input CLK_in,RST;
output reg CLK_50,CLK_10,CLK_1;

reg [2:0] cnt_10;   // 0..4
reg [3:0] hi;       // 0..9, cnt_100 of the reference = 5*hi + cnt_10

wire wrap5  = cnt_10[2];            // cnt_10 == 4 (values stay in 0..4)
wire wrap10 = hi[3] & hi[0];        // hi == 9 (values stay in 0..9)

always @(posedge CLK_in or posedge RST) begin
	if (RST)
		CLK_50 <= 1'b0;
	else
		CLK_50 <= ~CLK_50;
end

always @(posedge CLK_in or posedge RST) begin
	if (RST) begin
		CLK_10 <= 1'b0;
		cnt_10 <= 3'd0;
	end
	else if (wrap5) begin
		CLK_10 <= ~CLK_10;
		cnt_10 <= 3'd0;
	end
	else
		cnt_10 <= cnt_10 + 1'b1;
end

always @(posedge CLK_in or posedge RST) begin
	if (RST) begin
		CLK_1 <= 1'b0;
		hi <= 4'd0;
	end
	else if (wrap5) begin
		if (wrap10) begin
			CLK_1 <= ~CLK_1;
			hi <= 4'd0;
		end
		else
			hi <= hi + 1'b1;
	end
end

endmodule
