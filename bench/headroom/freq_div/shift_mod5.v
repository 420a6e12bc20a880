// kind: encoding
// change: cnt_10 becomes a 3-bit shift-register mod-5 sequence (000,001,011,110,100: next = {s[1:0], ~(s[1]|s[2])}) and cnt_100 a 4-bit mod-10 counter stepped on its wrap (cnt_100 = 5*hi + cnt_10), a re-encoding and factoring synthesis does not do.
module freq_div (CLK_in,CLK_50,CLK_10,CLK_1,RST);
input CLK_in,RST;
output reg CLK_50,CLK_10,CLK_1;

reg [2:0] s;        // cnt_10 0..4 as 000,001,011,110,100
reg [3:0] hi;       // 0..9

wire wrap5  = s[2] & ~s[1];         // state 100 = cnt_10 == 4
wire wrap10 = hi[3] & hi[0];        // hi == 9

always @(posedge CLK_in or posedge RST) begin
	if (RST)
		CLK_50 <= 1'b0;
	else
		CLK_50 <= ~CLK_50;
end

always @(posedge CLK_in or posedge RST) begin
	if (RST) begin
		CLK_10 <= 1'b0;
		s <= 3'd0;
	end
	else begin
		s <= {s[1:0], ~(s[1] | s[2])};
		if (wrap5)
			CLK_10 <= ~CLK_10;
	end
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
