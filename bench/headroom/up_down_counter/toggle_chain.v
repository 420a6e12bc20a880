// kind: arith
// change: the wrap-around compares are the natural modulo-2^16 wrap, so up/down counting becomes a toggle counter written as a ripple AND chain of 'lower bits equal up_down' (one chain instead of incrementer + decrementer + two compares + muxes), which Yosys cannot derive.
module up_down_counter (input wire clk, input wire reset, input wire up_down, output reg [15:0] count);
// bit i toggles when all lower bits equal up_down (all ones counting up, all zeros counting down)
wire [15:0] e = ~(count ^ {16{up_down}});
wire [16:0] t; assign t[0] = 1'b1;
genvar i;
generate for (i=0;i<16;i=i+1) begin: g
  assign t[i+1] = t[i] & e[i];
end endgenerate
always @(posedge clk or posedge reset)
    if (reset) count <= 16'b0;
    else count <= count ^ t[15:0];
endmodule
