// kind: share
// change: the mutually exclusive wave + 1 and wave - 1 become one adder wave + {4{state[0]},1} and the never-set state[1] is dropped, since synthesis keeps both an incrementer and a decrementer and a mux after them.
module signal_generator(
  input clk,
  input rst_n,
  output reg [4:0] wave
);

  reg dir;   // state[0] of the reference; state[1] is never set

  wire at_end = dir ? (wave == 5'b00000) : (wave == 5'b11111);

  always @(posedge clk or negedge rst_n) begin
    if (~rst_n) begin
      dir <= 1'b0;
      wave <= 5'b0;
    end
    else if (at_end)
      dir <= ~dir;
    else
      wave <= wave + {{4{dir}}, 1'b1};
  end

endmodule
