// kind: idle
// change: data_out[15:8] drives straight from data_lock, which holds still in the cycle valid_out is high (it only loads when flag is 0) and is 0 under reset, so 8 output flops go; synthesis cannot use the rule that data_out is only observed while valid_out is high or in reset.
module width_8to16(
	input 				   clk 		,
	input 				   rst_n		,
	input				      valid_in	,
	input	   [7:0]		   data_in	,

 	output	reg			valid_out,
	output       [15:0]	data_out
);
reg 	[7:0]		data_lock;
reg 	[7:0]		data_lo;
reg 				flag	   ;
always @(posedge clk or negedge rst_n ) begin
	if(!rst_n)
		data_lock <= 'd0;
	else if(valid_in && !flag)
		data_lock <= data_in;
end
always @(posedge clk or negedge rst_n ) begin
	if(!rst_n)
		flag <= 'd0;
	else if(valid_in)
		flag <= ~flag;
end
always @(posedge clk or negedge rst_n ) begin
	if(!rst_n)
		valid_out <= 'd0;
	else
		valid_out <= valid_in && flag;
end
always @(posedge clk or negedge rst_n ) begin
	if(!rst_n)
		data_lo <= 'd0;
	else if(valid_in && flag)
		data_lo <= data_in;
end
assign data_out = {data_lock, data_lo};

endmodule
