// kind: idle
// change: the stack slots are no longer cleared on reset and on pop (a slot below SP is always rewritten by a push before a pop reads it) and EMPTY is SP[2] instead of its own flop (they are updated together), bookkeeping synthesis cannot prove unobservable.
module LIFObuffer (
    input [3:0] dataIn,
    input RW,
    input EN,
    input Rst,
    input Clk,
    output EMPTY,
    output reg FULL,
    output reg [3:0] dataOut
);

    reg [3:0] stack_mem[0:3];
    reg [2:0] SP;

    assign EMPTY = SP[2];

    wire push = ~(SP == 3'd0) & ~RW;
    wire pop  = ~SP[2] & RW;
    wire [2:0] SPm = SP - 1'b1;
    wire [2:0] SPp = SP + 1'b1;

    always @ (posedge Clk) begin
        if (EN) begin
            if (Rst) begin
                SP <= 3'd4;
                dataOut <= 4'h0;
            end else begin
                dataOut <= 4'hx;
                if (push) begin
                    SP <= SPm;
                    FULL <= (SPm == 3'd0);
                    stack_mem[SPm[1:0]] <= dataIn;
                end else if (pop) begin
                    dataOut <= stack_mem[SP[1:0]];
                    SP <= SPp;
                    FULL <= (SPp == 3'd0);
                end else begin
                    FULL <= (SP == 3'd0);
                end
            end
        end
    end
endmodule
