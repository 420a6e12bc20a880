// kind: encoding
// change: the one-hot p_red/p_yellow/p_green and red/yellow/green flops become 2-bit copies of the state one and two cycles ago decoded where used, and the 8-bit countdown (only 1..60) becomes 6 bits with clock[7:6] tied to 0, a re-encoding and range fact synthesis does not derive.
module traffic_light
    (
		input rst_n,
      input clk,
      input pass_request,
		  output wire[7:0]clock,
      output red,
		  output yellow,
		  output green
    );

	parameter 	idle = 2'd0,
				s1_red = 2'd1,
				s2_yellow = 2'd2,
				s3_green = 2'd3;
	reg [5:0] cnt;
	reg [1:0] state;
	reg [1:0] ps;   // state one cycle ago
	reg [1:0] ls;   // state two cycles ago

always @(posedge clk or negedge rst_n)
    begin
        if(!rst_n) begin
			state <= idle;
			ps <= idle;
        end
        else begin
			ps <= state;
			if (cnt == 3)
				case(state)
				s1_red:    state <= s3_green;
				s2_yellow: state <= s1_red;
				s3_green:  state <= s2_yellow;
				default:   state <= s1_red;
				endcase
			else if (state == idle)
				state <= s1_red;
        end
	end

	// p_red/p_yellow/p_green of the reference are the one-hot decode of the previous state
	wire p_red    = (ps == s1_red);
	wire p_yellow = (ps == s2_yellow);
	wire p_green  = (ps == s3_green);

always @(posedge clk or negedge rst_n)
      if(!rst_n)
			cnt <= 6'd10;
		else if (pass_request&&green&&(cnt>10))
			cnt <= 6'd10;
		else if (!green&&p_green)
			cnt <= 6'd60;
		else if (!yellow&&p_yellow)
			cnt <= 6'd5;
		else if (!red&&p_red)
			cnt <= 6'd10;
		else cnt <= cnt -1;
 assign clock = {2'b00, cnt};

always @(posedge clk or negedge rst_n)
        if(!rst_n)
			ls <= idle;
		else
			ls <= ps;

	// red/yellow/green of the reference are the one-hot decode of the state two cycles ago
	assign red    = (ls == s1_red);
	assign yellow = (ls == s2_yellow);
	assign green  = (ls == s3_green);

endmodule
