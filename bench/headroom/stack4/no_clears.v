// kind: idle
// change: the words are no longer cleared at reset or on a pop: a word above the top is always written by a push before a pop reads it, which synthesis cannot know (a mux or reset on every bit of the array).
module stack4(input clk, input rst, input push, input pop, input [7:0] din,
              output reg [7:0] dout, output empty, output full);
    reg [7:0] mem [0:3];
    reg [2:0] n;

    assign empty = (n == 3'd0);
    assign full = (n == 3'd4);

    always @(posedge clk) begin
        if (rst) begin
            n = 3'd0;
            dout = 8'd0;
        end else if (push && !full) begin
            mem[n[1:0]] = din;
            n = n + 3'd1;
        end else if (pop && !empty) begin
            n = n - 3'd1;
            dout = mem[n[1:0]];
        end
    end
endmodule
