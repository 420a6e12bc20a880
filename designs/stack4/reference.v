// stack4: a four-word stack written the plain way: the words are cleared at reset and on a pop
module stack4(input clk, input rst, input push, input pop, input [7:0] din,
              output reg [7:0] dout, output empty, output full);
    reg [7:0] mem [0:3];
    reg [2:0] n;                    // words held, 0..4
    integer i;

    assign empty = (n == 3'd0);
    assign full = (n == 3'd4);

    always @(posedge clk) begin
        if (rst) begin
            n = 3'd0;
            dout = 8'd0;
            for (i = 0; i < 4; i = i + 1)
                mem[i] = 8'd0;
        end else if (push && !full) begin
            mem[n[1:0]] = din;
            n = n + 3'd1;
        end else if (pop && !empty) begin
            n = n - 3'd1;
            dout = mem[n[1:0]];
            mem[n[1:0]] = 8'd0;
        end
    end
endmodule
