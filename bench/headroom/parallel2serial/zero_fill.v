// kind: idle
// change: the bit rotated into data[0] is never shifted out before the next load, so the rotation becomes a zero-filling shift (data[0] <= d[0] & load, an AND instead of a mux); synthesis cannot see that the wrapped bit never reaches dout.
module parallel2serial(
	input wire clk  ,
	input wire rst_n  ,
	input wire [3:0]d ,
	output wire valid_out ,
	output wire dout
	);

reg [3:0] data = 'd0;
reg [1:0]cnt;
reg valid;
wire load = &cnt;
assign dout = data[3];
assign valid_out = valid;
always @(posedge clk or negedge rst_n) begin
    if(!rst_n)begin
        data<= 'd0;
        cnt <= 'd0;
        valid <= 'd0;
    end
    else begin
        cnt <= cnt + 2'd1;
        valid <= load;
        data[3:1] <= load ? d[3:1] : data[2:0];
        data[0] <= load & d[0];
    end
end

endmodule
