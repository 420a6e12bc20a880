// kind: width
// change: the state register is 1 bit (it only takes 0 and 1: the case has no arm that sets bit 1), which Yosys cannot see without induction; found by the bundled model's decl action in bench/find_rate.py (2026-12-02), written here so the map's ceiling includes it.
module signal_generator(
  input clk,
  input rst_n,
  output reg [4:0] wave
);

  reg [0:0] state;
  
  always @(posedge clk or negedge rst_n) begin
    if (~rst_n) begin
      state <= 2'b0;
      wave <= 5'b0;
    end
    else begin
      case (state)
        2'b00:
          begin
            if (wave == 5'b11111)
              state <= 2'b01;
            else
              wave <= wave + 1;
          end
          
        2'b01:
          begin
            if (wave == 5'b00000)
              state <= 2'b00;
            else
              wave <= wave - 1;
          end
      endcase
    end
  end

endmodule
